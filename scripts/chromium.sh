#!/usr/bin/env bash
# Make sure a Chromium exists for the browser tests: Debian's package (the
# test tools' own browser downloads do not work offline). Quiet when present.
set -euo pipefail

if [ -n "${SECKILL_CHROMIUM:-}" ] || command -v chromium >/dev/null 2>&1 ||
	command -v chromium-browser >/dev/null 2>&1 || command -v google-chrome >/dev/null 2>&1; then
	exit 0
fi
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "chromium.sh: installing chromium for the browser tests"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq chromium >/dev/null
	exit 0
fi
echo "chromium.sh: the browser tests need Chromium: run 'sudo apt-get install -y chromium'" >&2
echo "            (or set SECKILL_CHROMIUM to a Chrome/Chromium binary)" >&2
exit 1
