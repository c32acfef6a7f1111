#!/usr/bin/env bash
# Make MySQL/MariaDB and Redis available for local runs and tests.
# For each service: use it if it already answers, else start an installed
# one, else apt-get install it (root only), else docker compose, else explain.
# Idempotent and quiet on success; safe to run before every `make test`.
set -euo pipefail

DB_HOST=${SECKILL_DB_HOST:-127.0.0.1}
DB_PORT=${SECKILL_DB_PORT:-3306}
DB_USER=${SECKILL_DB_USER:-seckill}
DB_PASS=${SECKILL_DB_PASSWORD:-seckill}
REDIS_HOST=${SECKILL_REDIS_HOST:-127.0.0.1}
REDIS_PORT=${SECKILL_REDIS_PORT:-6379}
ROOT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

log() { echo "services.sh: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }

# Privileged commands: direct as root, through sudo otherwise (may prompt).
USE_SUDO=""
if [ "$(id -u)" -ne 0 ] && have sudo; then USE_SUDO=1; fi
as_root() { if [ -n "$USE_SUDO" ]; then sudo "$@"; else "$@"; fi; }
is_root_capable() { [ "$(id -u)" -eq 0 ] || [ -n "$USE_SUDO" ]; }

is_local() { case "$1" in 127.0.0.1 | localhost | ::1) return 0 ;; *) return 1 ;; esac; }
systemd_running() { [ -d /run/systemd/system ]; }

# Plain TCP probes, for machines without the client tools (timeout: GNU only).
tmo() { if have timeout; then timeout 2 "$@"; else "$@"; fi; }
# shellcheck disable=SC2016 # $1/$2 are expanded by the inner bash
tcp_open() { tmo bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$1" "$2" 2>/dev/null; }

# Run `check` every second for up to 30 s.
wait_for() {
	local name=$1 i
	shift
	for ((i = 0; i < 30; i++)); do
		"$@" && return 0
		sleep 1
	done
	die "$name did not come up within 30 s"
}

# ---------------------------------------------------------------- MySQL ----

MYSQL_CLI=""
find_mysql_cli() { MYSQL_CLI=$(command -v mariadb || command -v mysql || true); }

# Prints ok (project user logs in), denied (server up, login refused) or down.
mysql_state() {
	if [ -z "$MYSQL_CLI" ]; then
		# No client: an open port is the best we can check.
		if tcp_open "$DB_HOST" "$DB_PORT"; then echo ok; else echo down; fi
		return
	fi
	local out
	# MYSQL_PWD keeps the password off the command line (and its warning).
	if out=$(MYSQL_PWD=$DB_PASS "$MYSQL_CLI" --protocol=TCP -h"$DB_HOST" -P"$DB_PORT" \
		-u"$DB_USER" --connect-timeout=3 -e 'select 1' 2>&1); then
		echo ok
	else
		case "$out" in
		*"Access denied"* | *"not allowed to connect"* | *" 1045 "* | *" 1130 "*) echo denied ;;
		*) echo down ;;
		esac
	fi
}
mysql_answers() { [ "$(mysql_state)" != down ]; }

start_mysql() {
	log "starting MariaDB/MySQL"
	if systemd_running; then
		as_root systemctl start mariadb 2>/dev/null || as_root systemctl start mysql
	else
		# /run is a tmpfs: the socket dir vanishes on reboot without systemd.
		as_root install -d -o mysql -g mysql /run/mysqld &&
			as_root start-stop-daemon --start --oknodo --background --exec "$MYSQLD" -- --user=mysql
	fi
}

# Sets MYSQLD to the server binary (sbin is often not on a user's PATH).
MYSQLD=""
mysql_installed() {
	for MYSQLD in "$(command -v mariadbd)" "$(command -v mysqld)" /usr/sbin/mariadbd /usr/sbin/mysqld; do
		[ -x "$MYSQLD" ] && return 0
	done
	return 1
}

# SQL as the database root, via the unix socket (Debian's root only logs in
# that way), falling back to the compose container's root password.
root_sql() {
	if [ -n "$MYSQL_CLI" ] && is_local "$DB_HOST" && as_root "$MYSQL_CLI" -uroot -e "$1" 2>/dev/null; then return 0; fi
	if docker_ok && (cd "$ROOT_DIR" && compose ps --status running -q mysql 2>/dev/null | grep -q .); then
		(cd "$ROOT_DIR" && compose exec -T mysql mysql -uroot -proot -e "$1")
		return
	fi
	return 1
}

ensure_mysql_user() {
	[ "$(mysql_state)" = ok ] && return 0
	log "MySQL user '$DB_USER' cannot log in; creating it with grants on seckill% databases"
	local pass=${DB_PASS//\'/\'\'} sql="" h
	# localhost and 127.0.0.1 entries beat MariaDB's anonymous users; % covers containers.
	for h in localhost 127.0.0.1 %; do
		sql+="CREATE USER IF NOT EXISTS '$DB_USER'@'$h' IDENTIFIED BY '$pass';"$'\n'
		sql+="ALTER USER '$DB_USER'@'$h' IDENTIFIED BY '$pass';"$'\n'
		# Wildcard so tests can CREATE/DROP their own seckill_test_* databases.
		sql+="GRANT ALL PRIVILEGES ON \`seckill%\`.* TO '$DB_USER'@'$h';"$'\n'
	done
	root_sql "$sql" || die "cannot log in to MySQL as root to create '$DB_USER'. Run this as the database root:
sudo mariadb -uroot <<'SQL'
$sql
SQL"
	[ "$(mysql_state)" = ok ] || die "user '$DB_USER' still cannot log in to $DB_HOST:$DB_PORT"
}

# The tests run several servers at once (parallel tests, twins, fault-test
# fleets), each with a pool of up to 32 connections: the stock limit of 151
# runs out. Best effort: without root on the database, say so and go on.
raise_mysql_connections() {
	local want=1000
	root_sql "SET GLOBAL max_connections = GREATEST(@@GLOBAL.max_connections, $want);" ||
		log "could not raise MySQL's max_connections to $want (no root access); parallel tests may run out of connections"
}

# ---------------------------------------------------------------- Redis ----

redis_ok() {
	if have redis-cli; then
		[ "$(redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]
	else
		# shellcheck disable=SC2016 # expanded by the inner bash
		tmo bash -c 'exec 3<>"/dev/tcp/$1/$2"; printf "PING\r\n" >&3; read -r l <&3; [[ $l == +PONG* ]]' \
			_ "$REDIS_HOST" "$REDIS_PORT" 2>/dev/null
	fi
}

start_redis() {
	log "starting Redis"
	if systemd_running; then
		as_root systemctl start redis-server 2>/dev/null || as_root systemctl start redis
		return
	fi
	# Throwaway dev/CI instance: no persistence, loopback only.
	local dir=/var/lib/redis logdir=/var/log/redis
	if ! is_root_capable; then dir=${TMPDIR:-/tmp}/seckill-redis logdir=$dir; fi
	{ mkdir -p "$dir" "$logdir" 2>/dev/null || as_root mkdir -p "$dir" "$logdir"; } &&
		redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$REDIS_PORT" --save "" \
		--appendonly no --dir "$dir" --logfile "$logdir/ci.log" >/dev/null
}

# ------------------------------------------------------ install fallbacks ----

APT_DONE=""
apt_install() {
	[ -n "$APT_DONE" ] && return 0
	if [ "$(id -u)" -ne 0 ] || ! have apt-get; then return 1; fi
	log "installing mariadb-server mariadb-client redis-server with apt-get"
	local aptlog
	aptlog=$(mktemp)
	if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		mariadb-server mariadb-client redis-server; } >"$aptlog" 2>&1; then
		tail -n 30 "$aptlog" >&2
		die "apt-get install failed"
	fi
	rm -f "$aptlog"
	APT_DONE=1
	find_mysql_cli
}

docker_ok() { have docker && docker info >/dev/null 2>&1; }
# The server service needs the secrets only to interpolate the file.
compose() {
	SECKILL_ADMIN_TOKEN=${SECKILL_ADMIN_TOKEN:-unused} SECKILL_JWT_SECRET=${SECKILL_JWT_SECRET:-unused} \
		SECKILL_DRAW_KEY=${SECKILL_DRAW_KEY:-unused} docker compose "$@"
}
compose_up() {
	log "starting $1 with docker compose"
	(cd "$ROOT_DIR" && compose up -d --wait --wait-timeout 120 "$1" >/dev/null)
}

how_to_install() {
	die "$1 is not reachable at $2 and could not be started here. Install it, e.g.:
  Debian/Ubuntu: sudo apt-get install -y mariadb-server mariadb-client redis-server
  macOS:         brew install mariadb redis && brew services start mariadb && brew services start redis
  or Docker:     docker compose up -d mysql redis
then re-run $0 (override the address with SECKILL_DB_HOST/PORT, SECKILL_REDIS_HOST/PORT)."
}

# ------------------------------------------------------------------ main ----

find_mysql_cli
if ! mysql_answers; then
	is_local "$DB_HOST" || die "MySQL at $DB_HOST:$DB_PORT is not answering (not a local address, not starting it)"
	if mysql_installed || { apt_install && mysql_installed; }; then
		start_mysql || die "could not start MariaDB/MySQL (needs root or sudo); start it and re-run"
		wait_for "MySQL at $DB_HOST:$DB_PORT" mysql_answers
	elif docker_ok; then
		compose_up mysql
		wait_for "MySQL at $DB_HOST:$DB_PORT" mysql_answers
	else
		how_to_install MySQL/MariaDB "$DB_HOST:$DB_PORT"
	fi
fi
ensure_mysql_user
raise_mysql_connections

if ! redis_ok; then
	is_local "$REDIS_HOST" || die "Redis at $REDIS_HOST:$REDIS_PORT is not answering (not a local address, not starting it)"
	if have redis-server || apt_install; then
		start_redis || die "could not start Redis; start it and re-run"
		wait_for "Redis at $REDIS_HOST:$REDIS_PORT" redis_ok
	elif docker_ok; then
		compose_up redis
		wait_for "Redis at $REDIS_HOST:$REDIS_PORT" redis_ok
	else
		how_to_install Redis "$REDIS_HOST:$REDIS_PORT"
	fi
fi
