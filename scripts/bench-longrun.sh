#!/usr/bin/env bash
# make bench: what a long run costs in memory. Runs `stortest run` (psync
# randrw 4k on a page-cached temp file, 1 s per-second samples and
# histogram logs) for LONGRUN_SECONDS (default 120), samples its resident
# memory every 5 s and extrapolates the growth to an hour.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bench.out}
secs=${LONGRUN_SECONDS:-120}
mkdir -p "$out"
work=$(mktemp -d)
pid=
cleanup() {
	if [[ -n $pid ]]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/stortest" ./cmd/stortest
"$work/stortest" run --progress=off --output-format=json --name=long --ioengine=psync --rw=randrw --bs=4k \
	--size=64m --filename="$work/data" --time_based --runtime="$secs" --write_hist_log="$work/h" >"$work/out.json" &
pid=$!
samples=()
while kill -0 "$pid" 2>/dev/null; do
	sleep 5
	rss=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status 2>/dev/null || true)
	[[ -n $rss ]] && samples+=("$(date +%s.%N) $rss")
done
wait "$pid"
pid=
printf '%s\n' "${samples[@]}" | python3 -c '
import sys
pts = [tuple(map(float, l.split())) for l in sys.stdin if l.strip()]
# Skip the first 10 s: start-up, page cache and the first arena chunks.
t0 = pts[0][0]
pts = [(t - t0, kb) for t, kb in pts if t - t0 >= 10]
n = len(pts)
mt = sum(t for t, _ in pts) / n
mk = sum(k for _, k in pts) / n
slope = sum((t - mt) * (k - mk) for t, k in pts) / sum((t - mt) ** 2 for t, _ in pts)  # KiB/s
print(f"long run: RSS {pts[0][1]/1024:.1f} MiB at {pts[0][0]:.0f} s, {pts[-1][1]/1024:.1f} MiB at {pts[-1][0]:.0f} s; "
      f"growth {slope*1024:.0f} B/s, {slope*3600/1024:.1f} MiB per hour")
' | tee "$out/longrun.txt"
