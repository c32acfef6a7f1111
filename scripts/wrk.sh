#!/usr/bin/env bash
# Make wrk available for `make bench`: Debian's package, installed when
# missing. The package lists may be stale or absent on a fresh machine, so a
# failed install is retried once after refreshing them.
set -euo pipefail

if command -v wrk >/dev/null 2>&1; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null 2>&1; then
	echo "wrk.sh: wrk is missing; install it (apt-get install wrk) and run make bench again" >&2
	exit 1
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get install -y -qq wrk >/dev/null; then
	$SUDO apt-get update -qq
	$SUDO apt-get install -y -qq wrk >/dev/null
fi
command -v wrk >/dev/null 2>&1 || { echo "wrk.sh: wrk still missing after apt-get install" >&2; exit 1; }
