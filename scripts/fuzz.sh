#!/usr/bin/env bash
# Runs every Fuzz* target in the module for $FUZZTIME (default 30s) each.
# New corpus entries that crash are written under the package's
# testdata/fuzz/ by go test, ready to be committed as regression seeds.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-30s}
n=0
while read -r pkg; do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		echo "== $pkg $target ($fuzztime)"
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg"
		n=$((n + 1))
	done
done < <(go list ./...)
echo "fuzzed $n targets"
