#!/usr/bin/env bash
# Print the path of a promtool, installing one into bin/ if none is found.
# Fastest first (measured on a fresh Debian machine): Debian's prometheus
# package ships /usr/bin/promtool, a static binary, so it is taken out of
# the downloaded .deb (about 2 s, and no Prometheus server installed or
# started). Fallback: build it with go install (about 10 minutes on a cold
# module cache: it pulls in every service discovery SDK).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PROMTOOL_VERSION="${PROMTOOL_VERSION:-v0.316.0}" # module version for go install

if command -v promtool >/dev/null 2>&1; then
	command -v promtool
	exit 0
fi
if [ -x bin/promtool ]; then
	echo bin/promtool
	exit 0
fi
mkdir -p bin

from_deb() {
	command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 || return 1
	local tmp
	tmp="$(mktemp -d)"
	# apt-get download needs the package lists; a fresh machine may have none.
	if ! (cd "$tmp" && apt-get download -qq prometheus >/dev/null 2>&1); then
		sudo=""
		[ "$(id -u)" -eq 0 ] || sudo="sudo -n"
		$sudo apt-get update -qq >/dev/null 2>&1 || { rm -rf "$tmp"; return 1; }
		(cd "$tmp" && apt-get download -qq prometheus >/dev/null 2>&1) || { rm -rf "$tmp"; return 1; }
	fi
	dpkg-deb --fsys-tarfile "$tmp"/prometheus_*.deb | tar -xO ./usr/bin/promtool >bin/promtool.part &&
		chmod +x bin/promtool.part && bin/promtool.part --version >/dev/null 2>&1 &&
		mv bin/promtool.part bin/promtool
	local rc=$?
	rm -rf "$tmp" bin/promtool.part
	return $rc
}

if from_deb; then
	echo "promtool.sh: took promtool from Debian's prometheus package" >&2
else
	echo "promtool.sh: building promtool $PROMTOOL_VERSION with go install (minutes on a cold module cache)" >&2
	GOBIN="$PWD/bin" go install "github.com/prometheus/prometheus/cmd/promtool@$PROMTOOL_VERSION" >&2
fi
echo bin/promtool
