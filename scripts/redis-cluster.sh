#!/usr/bin/env bash
# A local Redis Cluster for tests and for trying SECKILL_REDIS_ADDRS, built
# from the installed redis-server on spare loopback ports.
#
#   scripts/redis-cluster.sh start   # start (or reuse) it; prints "host:port,host:port,..."
#   scripts/redis-cluster.sh stop    # stop it and remove its files
#   scripts/redis-cluster.sh addrs   # print the addresses of the running cluster
#
# MASTERS (default 3) and REPLICAS (replicas per master, default 0) shape it;
# SECKILL_CLUSTER_DIR (default /tmp/seckill-redis-cluster) holds its files.
# It keeps nothing on disk worth keeping: no AOF, no RDB.
set -euo pipefail

DIR=${SECKILL_CLUSTER_DIR:-/tmp/seckill-redis-cluster}
MASTERS=${MASTERS:-3}
REPLICAS=${REPLICAS:-0}
NODES=$((MASTERS * (1 + REPLICAS)))

log() { echo "redis-cluster.sh: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# shellcheck disable=SC2016 # $1 is expanded by the inner bash
port_busy() { timeout 1 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"' _ "$1" 2>/dev/null; }

addrs() { [ -s "$DIR/addrs" ] && cat "$DIR/addrs"; }

# healthy: every node of the recorded cluster answers and sees cluster_state:ok.
healthy() {
	local a
	[ -s "$DIR/addrs" ] || return 1
	for a in $(tr ',' ' ' <"$DIR/addrs"); do
		redis-cli -h "${a%:*}" -p "${a##*:}" cluster info 2>/dev/null | grep -q '^cluster_state:ok' || return 1
	done
}

# pick_ports prints NODES ports from 7100 up whose port and cluster bus port
# (port + 10000) are both free.
pick_ports() {
	local p=7100 found=()
	while [ "${#found[@]}" -lt "$NODES" ] && [ "$p" -lt 8000 ]; do
		if ! port_busy "$p" && ! port_busy $((p + 10000)); then found+=("$p"); fi
		p=$((p + 1))
	done
	[ "${#found[@]}" -eq "$NODES" ] || die "no $NODES free ports in 7100-7999"
	echo "${found[@]}"
}

stop() {
	local pid
	for pid in "$DIR"/*/redis.pid; do
		[ -f "$pid" ] && kill "$(cat "$pid")" 2>/dev/null || true
	done
	sleep 0.3
	rm -rf "$DIR"
}

start() {
	if healthy; then addrs; return; fi
	if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
		[ "$(id -u)" -eq 0 ] || die "redis-server and redis-cli are needed (apt-get install redis-server)"
		log "installing redis-server"
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
	fi
	stop
	mkdir -p "$DIR"
	local ports p list=()
	read -r -a ports <<<"$(pick_ports)"
	for p in "${ports[@]}"; do
		mkdir -p "$DIR/$p"
		redis-server --port "$p" --bind 127.0.0.1 --dir "$DIR/$p" --daemonize yes \
			--pidfile "$DIR/$p/redis.pid" --logfile "$DIR/$p/redis.log" \
			--cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 3000 \
			--appendonly no --save ""
		list+=("127.0.0.1:$p")
	done
	for p in "${ports[@]}"; do
		for _ in $(seq 50); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.1; done
	done
	redis-cli --cluster create "${list[@]}" --cluster-replicas "$REPLICAS" --cluster-yes >"$DIR/create.log" 2>&1 ||
		{ cat "$DIR/create.log" >&2; die "redis-cli --cluster create failed"; }
	(IFS=,; echo "${list[*]}") >"$DIR/addrs"
	for _ in $(seq 100); do healthy && break; sleep 0.1; done
	healthy || die "cluster not ok after 10 s (see $DIR/*/redis.log)"
	log "cluster of $MASTERS masters, $REPLICAS replica(s) each, up at $(addrs)"
	addrs
}

case "${1:-start}" in
start) start ;;
stop) stop ;;
addrs) addrs || die "no cluster recorded in $DIR" ;;
*) die "usage: $0 start|stop|addrs" ;;
esac
