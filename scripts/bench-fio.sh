#!/usr/bin/env bash
# make bench: fio 3.33 and stortest side by side on the same targets.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bench.out}
if ! command -v fio >/dev/null; then
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fio >/dev/null
fi
mkdir -p "$out"
go build -o "$out/stortest" ./cmd/stortest
python3 scripts/bench_fio.py "$out/stortest" "$out"
