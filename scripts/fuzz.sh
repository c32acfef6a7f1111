#!/usr/bin/env bash
# Runs every fuzz target for a short while, one `go test -fuzz` per target
# (Go fuzzes one target per invocation). Every target runs even if an earlier
# one fails; the script fails at the end if any did. A failing input is saved
# under the package's testdata/fuzz/<Target>/, where go test replays it.
#
#   scripts/fuzz.sh                       # every target, 10s each
#   FUZZTIME=1m scripts/fuzz.sh FuzzItemBody
#
# FUZZTIME is how long each target runs (a duration, or Nx for N inputs).
# FUZZMINIMIZETIME caps the time spent shrinking an input of an in-process
# target (Go's default of 60s would outlast a short run). The end-to-end
# targets shrink nothing: Go stops a worker that is busy shrinking by
# signalling it and then killing it a second later, which can be before the
# test's cleanup has dropped its database and Redis keys. They need MySQL and
# Redis (make services); the test service addresses default as in the Makefile.
set -euo pipefail
cd "$(dirname "$0")/.."

GO="${GO:-go}"
FUZZTIME="${FUZZTIME:-10s}"
FUZZMINIMIZETIME="${FUZZMINIMIZETIME:-10s}"

db_host="${SECKILL_DB_HOST:-127.0.0.1}" db_port="${SECKILL_DB_PORT:-3306}"
db_user="${SECKILL_DB_USER:-seckill}" db_password="${SECKILL_DB_PASSWORD:-seckill}"
export SECKILL_TEST_MYSQL_DSN="${SECKILL_TEST_MYSQL_DSN:-$db_user:$db_password@tcp($db_host:$db_port)/?parseTime=true&loc=UTC}"
export SECKILL_TEST_REDIS_ADDR="${SECKILL_TEST_REDIS_ADDR:-${SECKILL_REDIS_HOST:-127.0.0.1}:${SECKILL_REDIS_PORT:-6379}}"

# package, target and minimize time, in threes
targets=(
	./internal/httpapi FuzzPurchaseBody "$FUZZMINIMIZETIME"
	./internal/httpapi FuzzItemBody "$FUZZMINIMIZETIME"
	./internal/httpapi FuzzSessionBody "$FUZZMINIMIZETIME"
	./test/e2e/purchase FuzzPurchaseEndToEnd 0
	./test/e2e/purchase FuzzAdminCreateEndToEnd 0
)

wanted() { # the target is named on the command line, or none is
	[ $# -eq 1 ] && return 0
	local name=$1 arg
	shift
	for arg; do [ "$arg" = "$name" ] && return 0; done
	return 1
}

failed=() ran=0
for ((i = 0; i < ${#targets[@]}; i += 3)); do
	pkg=${targets[i]} name=${targets[i + 1]} minimize=${targets[i + 2]}
	wanted "$name" "$@" || continue
	ran=$((ran + 1))
	echo "== $name ($pkg) for $FUZZTIME"
	if ! "$GO" test "$pkg" -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$minimize"; then
		failed+=("$name")
	fi
done

if [ "$ran" -eq 0 ]; then
	echo "no fuzz target named: $*" >&2
	exit 2
fi
if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzzing failed: ${failed[*]}" >&2
	exit 1
fi
echo "fuzzing passed: $ran target(s), $FUZZTIME each"
