#!/usr/bin/env bash
# A short flash sale, a short drop of ten sizes and a short sale behind a
# waiting room, with k6 against a real server, so the load scripts never rot:
# builds the server, starts it on a spare port with a database and Redis
# prefix of its own, storms three small sales, and stops the server whatever
# happens. The exit status is k6's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

GO="${GO:-go}"
make --no-print-directory k6 build >/dev/null
K6=$(command -v k6 || echo bin/k6)

port=$((20000 + RANDOM % 10000))
tag="ci$RANDOM$RANDOM"
log=$(mktemp)
db_user="${SECKILL_DB_USER:-seckill}" db_password="${SECKILL_DB_PASSWORD:-seckill}"
db_host="${SECKILL_DB_HOST:-127.0.0.1}" db_port="${SECKILL_DB_PORT:-3306}"
export SECKILL_HTTP_ADDR="127.0.0.1:$port"
export SECKILL_MYSQL_DSN="$db_user:$db_password@tcp($db_host:$db_port)/seckill_k6_$tag?parseTime=true&loc=UTC"
export SECKILL_REDIS_ADDR="${SECKILL_REDIS_HOST:-127.0.0.1}:${SECKILL_REDIS_PORT:-6379}"
export SECKILL_REDIS_PREFIX="seckill-k6-$tag"
export SECKILL_ADMIN_TOKEN="k6-admin-$tag-$RANDOM$RANDOM"
export SECKILL_JWT_SECRET="k6-secret-$tag-0123456789abcdef0123456789"
export SECKILL_DRAW_KEY="k6:$(head -c 32 /dev/urandom | base64 | tr -d '\n')"
# The waiting room's shoppers solve a proof of work each, all from one
# address: the server prices them as a bot farm (a bit more per doubling of
# their rate). A low base keeps that at a few hundred hashes in k6's
# JavaScript; the rehearsal is of the room, the price has its own tests.
export SECKILL_POW_DIFFICULTY=4

bin/seckill serve >"$log" 2>&1 &
server=$!
cleanup() {
	kill "$server" 2>/dev/null || true
	wait "$server" 2>/dev/null || true
	mariadb -h"$db_host" -P"$db_port" -u"$db_user" -p"$db_password" -e "DROP DATABASE IF EXISTS seckill_k6_$tag" 2>/dev/null || true
	redis-cli -h "${SECKILL_REDIS_HOST:-127.0.0.1}" -p "${SECKILL_REDIS_PORT:-6379}" --scan --pattern "$SECKILL_REDIS_PREFIX:*" |
		xargs -r redis-cli -h "${SECKILL_REDIS_HOST:-127.0.0.1}" -p "${SECKILL_REDIS_PORT:-6379}" del >/dev/null 2>&1 || true
	rm -f "$log"
}
trap cleanup EXIT
for _ in $(seq 1 60); do
	curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
	kill -0 "$server" 2>/dev/null || { cat "$log"; exit 1; }
	sleep 0.5
done

BASE_URL="http://127.0.0.1:$port" ADMIN_TOKEN="$SECKILL_ADMIN_TOKEN" JWT_SECRET="$SECKILL_JWT_SECRET" \
	SHOPPERS="${SHOPPERS:-400}" STOCK="${STOCK:-50}" VUS="${VUS:-20}" OPENS_IN=3 \
	"$K6" run --quiet loadtest/flash_sale.js || { status=$?; tail -20 "$log"; exit "$status"; }
BASE_URL="http://127.0.0.1:$port" ADMIN_TOKEN="$SECKILL_ADMIN_TOKEN" JWT_SECRET="$SECKILL_JWT_SECRET" \
	DROP=1 SHOPPERS="${DROP_SHOPPERS:-300}" STOCK="${DROP_STOCK:-50}" VUS="${VUS:-20}" OPENS_IN=3 \
	"$K6" run --quiet loadtest/flash_sale.js || { status=$?; tail -20 "$log"; exit "$status"; }
BASE_URL="http://127.0.0.1:$port" ADMIN_TOKEN="$SECKILL_ADMIN_TOKEN" JWT_SECRET="$SECKILL_JWT_SECRET" \
	SHOPPERS="${ROOM_SHOPPERS:-300}" STOCK="${ROOM_STOCK:-40}" RATE="${ROOM_RATE:-40}" OPENS_IN=3 \
	"$K6" run --quiet loadtest/waiting_room.js || { status=$?; tail -20 "$log"; exit "$status"; }
