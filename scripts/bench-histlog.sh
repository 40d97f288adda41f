#!/usr/bin/env bash
# First merges 1,000 histogram logs (BenchmarkMergeThousandLogs: 1856
# buckets per row, 300 s of reads and writes each, about 3.2 GB) and
# reports the time, the peak growth of the heap and the files held open.
#
# Then times `stortest hist merge --format fio` against fio's own
# fio-histo-log-pctiles.py on a fleet-sized input: 64 histogram logs (8
# hosts x 8 jobs, mixed reads and writes), one hour at 1 s intervals,
# 1856 buckets per row (about 2.6 GB). Checks that both print the same
# lines (numbers within 1e-9 relative) and prints wall time, peak RSS and
# the speed ratio.
#
#   bash scripts/bench-histlog.sh OUTDIR
#
# Environment: HISTLOG_SCALE_SECONDS (300) sizes the 1,000 logs;
# HISTLOG_LOGS (64), HISTLOG_SECONDS (3600) size the input of the
# comparison (HISTLOG_SECONDS=900 is a quarter, for machines where the
# Python tool would take too long); HISTLOG_RUNS (3) is the number of
# stortest runs (the best is kept); HISTLOG_KEEP=1 keeps the generated
# logs.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bench.out}/histlog
logs=${HISTLOG_LOGS:-64}
seconds=${HISTLOG_SECONDS:-3600}
runs=${HISTLOG_RUNS:-3}
tool_gz=/usr/share/doc/fio/fio-histo-log-pctiles.py.gz
mkdir -p "$out"

echo "== merging 1,000 logs of ${HISTLOG_SCALE_SECONDS:-300} s (Go benchmark; ns/op is one merge)"
HISTLOG_SCALE_SECONDS=${HISTLOG_SCALE_SECONDS:-300} \
	go test -run '^$' -bench '^BenchmarkMergeThousandLogs$' -benchtime 1x -count 1 ./latency/histlog | tee "$out/thousand.txt"

for cmd in python3 /usr/bin/time; do
	command -v "$cmd" >/dev/null || { echo "bench-histlog: $cmd is missing; skipped"; exit 0; }
done
[[ -r $tool_gz ]] || { echo "bench-histlog: $tool_gz is missing (apt-get install fio); skipped"; exit 0; }
zcat "$tool_gz" >"$out/fio-histo-log-pctiles.py"

go build -o "$out/stortest" ./cmd/stortest
go build -o "$out/gen" ./latency/histlog/internal/gen

data=$out/logs-$logs-$seconds
if [[ ! -e $data/.done ]]; then
	echo "== generating $logs logs of $seconds s"
	rm -rf "$data"
	"$out/gen" -out "$data" -logs "$logs" -hosts 8 -seconds "$seconds"
	touch "$data/.done"
fi
files=("$data"/node*/h_clat_hist.*.log)
echo "== input: ${#files[@]} logs, $(du -sh "$data" | cut -f1)"
cat "${files[@]}" >/dev/null # page cache, the same for both tools

# peak_rss FILE, wall FILE: fields of /usr/bin/time -v.
peak_rss() { awk -F': ' '/Maximum resident set size/ {print $2}' "$1"; }
wall() {
	awk -F': ' '/Elapsed \(wall clock\)/ {
		n = split($2, p, ":"); s = 0
		for (i = 1; i <= n; i++) s = s * 60 + p[i]
		print s }' "$1"
}

best=
for i in $(seq "$runs"); do
	/usr/bin/time -v "$out/stortest" hist merge --format fio "${files[@]}" >"$out/stortest.txt" 2>"$out/stortest.time.$i"
	t=$(wall "$out/stortest.time.$i")
	echo "stortest run $i: ${t} s, peak RSS $(peak_rss "$out/stortest.time.$i") KiB"
	if [[ -z $best ]] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
		best=$t
		cp "$out/stortest.time.$i" "$out/stortest.time"
	fi
done

echo "== fio-histo-log-pctiles.py (single-threaded Python; minutes)"
/usr/bin/time -v python3 "$out/fio-histo-log-pctiles.py" "${files[@]}" >"$out/python.txt" 2>"$out/python.time"

echo "== comparing outputs"
python3 - "$out/python.txt" "$out/stortest.txt" <<'PY'
import sys
a = open(sys.argv[1]).read().splitlines()
b = open(sys.argv[2]).read().splitlines()
if len(a) != len(b):
    sys.exit("line counts differ: python %d, stortest %d" % (len(a), len(b)))
rows = exact = 0
for n, (x, y) in enumerate(zip(a, b), 1):
    if x == y:
        exact += 1
    fx, fy = x.split(', '), y.split(', ')
    if len(fx) != len(fy) or not x[:1].isspace() and not x[:1].isdigit():
        if x != y:
            sys.exit("line %d differs:\n  python:   %s\n  stortest: %s" % (n, x, y))
        continue
    rows += 1
    for u, v in zip(fx, fy):
        u, v = u.strip(), v.strip()
        if u == v:
            continue
        try:
            p, q = float(u), float(v)
        except ValueError:
            sys.exit("line %d differs: %r vs %r" % (n, u, v))
        if abs(p - q) > 1e-9 * max(abs(p), abs(q)):
            sys.exit("line %d: %s vs %s beyond 1e-9 relative" % (n, u, v))
print("outputs agree: %d lines, %d rows, %d lines identical" % (len(a), rows, exact))
PY

py=$(wall "$out/python.time")
st=$(wall "$out/stortest.time")
printf '%-28s %12s %14s\n' "" "wall (s)" "peak RSS (MiB)" | tee "$out/summary.txt"
printf '%-28s %12s %14d\n' "fio-histo-log-pctiles.py" "$py" $(($(peak_rss "$out/python.time") / 1024)) | tee -a "$out/summary.txt"
printf '%-28s %12s %14d\n' "stortest hist merge (best)" "$st" $(($(peak_rss "$out/stortest.time") / 1024)) | tee -a "$out/summary.txt"
awk -v a="$py" -v b="$st" 'BEGIN { printf "speed-up: %.0fx\n", a / b }' | tee -a "$out/summary.txt"
if [[ ${HISTLOG_KEEP:-0} != 1 ]]; then
	rm -rf "$data"
fi
