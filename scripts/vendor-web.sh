#!/usr/bin/env bash
# Vendor the browser libraries into web/static/vendor at pinned versions, so
# the pages work with no internet and no build step. Run through
# `make web-vendor`; commit the result. VERSION records what was taken.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

UPLOT_VERSION=1.6.32 # time-series charts: small, fast, one ES module

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "uplot@$UPLOT_VERSION" >/dev/null)
tar -xzf "$tmp/uplot-$UPLOT_VERSION.tgz" -C "$tmp"
dest=web/static/vendor/uplot
rm -rf "$dest" && mkdir -p "$dest"
cp "$tmp/package/dist/uPlot.esm.js" "$tmp/package/dist/uPlot.min.css" "$tmp/package/LICENSE" "$dest/"
{
	echo "uplot $UPLOT_VERSION (npm package uplot)"
	echo "sha256 of the package: $(sha256sum "$tmp/uplot-$UPLOT_VERSION.tgz" | cut -d' ' -f1)"
} >"$dest/VERSION"
echo "vendored uplot $UPLOT_VERSION into $dest"
