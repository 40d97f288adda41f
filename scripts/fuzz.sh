#!/usr/bin/env bash
# Runs every Fuzz* target in the module for $FUZZTIME each (default
# 200000x: a count of executions). A count, not a duration: with a duration
# Go 1.26's fuzz coordinator can fail a target at the deadline with a bare
# "context deadline exceeded" when the machine is busy (golang/go#75804,
# fixed in Go 1.27); a count has no deadline to race.
# Inputs that crash are written under the package's testdata/fuzz/ by
# go test, ready to be committed as regression seeds.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-200000x}
n=0
while read -r pkg; do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		echo "== $pkg $target ($fuzztime)"
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg"
		n=$((n + 1))
	done
done < <(go list ./...)
echo "fuzzed $n targets"
