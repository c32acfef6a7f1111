#!/usr/bin/env bash
# Print local development secrets as shell `export` lines:
#   eval "$(scripts/dev-env.sh)"
# They are generated once into .seckill-dev.env (gitignored, KEY=VALUE, usable
# as a docker --env-file) so the admin token stays the same across runs.
# Values already set in the environment win over the file.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
FILE=.seckill-dev.env

# Hex-encoded random bytes; openssl when present, else od on /dev/urandom.
rand_hex() {
	if command -v openssl >/dev/null 2>&1; then
		openssl rand -hex "$1"
	else
		od -An -v -tx1 -N"$1" /dev/urandom | tr -d ' \n'
	fi
}

# A draw key: an id and 32 random bytes in standard base64 (see README,
# "Checking a draw").
rand_draw_key() {
	if command -v openssl >/dev/null 2>&1; then
		echo "dev:$(openssl rand -base64 32)"
	else
		echo "dev:$(head -c 32 /dev/urandom | base64 | tr -d '\n')"
	fi
}

umask 077 # the file holds secrets
touch "$FILE"
for var in SECKILL_ADMIN_TOKEN SECKILL_JWT_SECRET SECKILL_DRAW_KEY; do
	val=$(sed -n "s/^$var=//p" "$FILE" | tail -n1)
	if [ -z "$val" ]; then
		if [ "$var" = SECKILL_DRAW_KEY ]; then
			val=$(rand_draw_key)
		else
			val=$(rand_hex 32) # 64 hex chars; the JWT secret needs >= 32 bytes
		fi
		echo "$var=$val" >>"$FILE"
	fi
	printf 'export %s=%q\n' "$var" "${!var:-$val}"
done
