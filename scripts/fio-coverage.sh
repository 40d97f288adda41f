#!/usr/bin/env bash
# fio-coverage.sh: how many of fio's own job files run under `stortest run`.
#
#   scripts/fio-coverage.sh FIO_SRC [FILE.fio ...]
#
# FIO_SRC is a checkout of fio's repository (git clone
# https://github.com/axboe/fio, or `git archive` of one): the script takes
# its examples/*.fio and t/jobs/*.fio, or the named files (paths relative
# to FIO_SRC). Each file is shortened the same way for both tools:
#   - runtime (timeout) is 2 s: every runtime= is set to 2 and every section
#     gets runtime=2, so size-bound jobs stop after 2 s too;
#   - size, filesize, io_size (io_limit) above 128 MiB become 128m;
#     ramp_time and startdelay above 1 s become 1;
#   - targets: filename= under /dev (but /dev/null and /dev/zero) is a
#     128 MiB scratch target, a loop device when root can attach one, else
#     a file; other absolute file names and every directory= move into the
#     job's own scratch directory, where relative names are made.
# fio (3.33 here) runs the shortened file first, in a fresh directory; the
# files it runs (exit 0 within $FIO_COVERAGE_TIMEOUT s, default 60) are
# then run by `stortest run` in another fresh directory. One line per file:
#   OK       stortest ran it
#   REFUSED  stortest refused it, with the message (it must name the fio
#            option or engine: "... is not supported by stortest")
#   FAIL     stortest failed otherwise, with the message
#   SKIP     fio itself does not run it here, with fio's message
# then the counts: "stortest runs N of M files fio runs (P%)", and the
# refusals grouped by message. Exit status 0, unless stortest fails to build.
# Nothing is left behind: scratch directories and the loop device are
# removed on exit.
set -euo pipefail

if [ $# -lt 1 ] || [ ! -d "$1" ]; then
	echo "usage: $0 FIO_SRC [FILE.fio ...]  (FIO_SRC: git clone https://github.com/axboe/fio)" >&2
	exit 2
fi
src=$(cd "$1" && pwd)
shift
repo=$(cd "$(dirname "$0")/.." && pwd)
limit=${FIO_COVERAGE_TIMEOUT:-60}
fio=${FIO:-fio}

tmp=$(mktemp -d /tmp/fio-coverage.XXXXXX)
loop=""
cleanup() {
	if [ -n "$loop" ]; then losetup -d "$loop" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

(cd "$repo" && go build -o "$tmp/stortest" ./cmd/stortest)

# The scratch target for device names: 128 MiB.
truncate -s 128M "$tmp/dev.img"
dev="$tmp/dev.img"
if [ "$(id -u)" = 0 ] && command -v losetup >/dev/null; then
	if loop=$(losetup -f --show "$tmp/dev.img" 2>/dev/null); then
		dev=$loop
	else
		loop=""
	fi
fi

files=("$@")
if [ ${#files[@]} -eq 0 ]; then
	files=()
	for f in "$src"/examples/*.fio "$src"/t/jobs/*.fio; do
		[ -e "$f" ] && files+=("${f#"$src"/}")
	done
fi

# shorten FILE DIR: writes DIR/job.fio, the shortened FILE.
shorten() {
	awk -v dev="$dev" -v dir="$2" '
	function bytes(v,   n, s, m) {
		if (v !~ /^[0-9]+[kKmMgGtTpP]?([iI]?[bB])?$/) return -1
		n = v; sub(/[^0-9].*$/, "", n)
		s = tolower(substr(v, length(n) + 1, 1))
		m = 1
		if (s == "k") m = 1024
		else if (s == "m") m = 1024 ^ 2
		else if (s == "g") m = 1024 ^ 3
		else if (s == "t") m = 1024 ^ 4
		else if (s == "p") m = 1024 ^ 5
		return n * m
	}
	function secs(v,   n, s) {
		if (v !~ /^[0-9]+(us|ms|s|m|h|d)?$/) return -1
		n = v; sub(/[^0-9].*$/, "", n)
		s = substr(v, length(n) + 1)
		if (s == "us") return n / 1e6
		if (s == "ms") return n / 1e3
		if (s == "m") return n * 60
		if (s == "h") return n * 3600
		if (s == "d") return n * 86400
		return n
	}
	function target(v,   n, i, p, out, parts) {
		# fio separates files with ":" and escapes a colon as "\:".
		gsub(/\\:/, "\001", v)
		n = split(v, parts, ":")
		out = ""
		for (i = 1; i <= n; i++) {
			p = parts[i]
			if (p ~ /^\/dev\// && p != "/dev/null" && p != "/dev/zero") p = dev
			else if (p ~ /^\//) { sub(/.*\//, "", p); p = dir "/" p }
			out = out (i > 1 ? ":" : "") p
		}
		gsub(/\001/, "\\:", out)
		return out
	}
	{
		line = $0
		if (line ~ /^[ \t]*\[.*\][ \t]*([;#].*)?$/) { print line; print "runtime=2"; next }
		if (line !~ /^[ \t]*[A-Za-z_]+[ \t]*=/) { print line; next }
		key = line; sub(/^[ \t]*/, "", key); sub(/[ \t]*=.*$/, "", key)
		val = line; sub(/^[^=]*=[ \t]*/, "", val); sub(/[ \t]*[;#].*$/, "", val); sub(/[ \t]+$/, "", val)
		if (key == "runtime" || key == "timeout") { print key "=2"; next }
		if (key == "size" || key == "filesize" || key == "io_size" || key == "io_limit") {
			b = bytes(val)
			if (b > 128 * 1024 * 1024) { print key "=128m"; next }
		}
		if (key == "ramp_time" || key == "startdelay") {
			s = secs(val)
			if (s > 1) { print key "=1"; next }
		}
		if (key == "filename") { print key "=" target(val); next }
		if (key == "directory") { print key "=" dir; next }
		print line
	}' "$1" >"$2/job.fio"
}

# firstline FILE: the first line of FILE that says what went wrong.
firstline() {
	grep -m1 -iE 'not supported|error|fail|invalid|unknown|bad|usage|denied|no such' "$1" 2>/dev/null ||
		grep -m1 . "$1" 2>/dev/null || echo "(no output)"
}

# reap DIR: kills what is left running in DIR, the working directory of
# one fio or stortest run: a fio past its time limit can leave job
# processes that timeout's signals did not reach.
reap() {
	local p
	for p in /proc/[0-9]*; do
		if [ "$(readlink "$p/cwd" 2>/dev/null)" = "$1" ]; then
			kill -9 "${p#/proc/}" 2>/dev/null || true
		fi
	done
}

total=0 fiook=0 ok=0 refused=0 failed=0
declare -A why=()
for rel in "${files[@]}"; do
	f="$src/$rel"
	total=$((total + 1))
	name=$(echo "$rel" | tr '/' '_')
	fdir="$tmp/$name.fio.d" sdir="$tmp/$name.st.d"
	mkdir -p "$fdir" "$sdir"
	shorten "$f" "$fdir"
	shorten "$f" "$sdir"
	rc=0
	(cd "$fdir" && exec timeout -k 5 "$limit" "$fio" --output-format=json --output=out.json job.fio \
		>stdout 2>stderr) 2>/dev/null || rc=$?
	reap "$fdir"
	if [ "$rc" != 0 ]; then
		msg=$(firstline "$fdir/stderr")
		[ "$msg" = "(no output)" ] && msg=$(firstline "$fdir/stdout")
		[ "$msg" = "(no output)" ] && msg="exit status $rc"
		[ "$rc" = 124 ] || [ "$rc" = 137 ] && msg="did not finish in $limit s"
		echo "SKIP     $rel: fio: $msg"
		rm -rf "$fdir" "$sdir"
		continue
	fi
	fiook=$((fiook + 1))
	rc=0
	(cd "$sdir" && exec timeout -k 5 "$limit" "$tmp/stortest" run --output-format=json --output=out.json job.fio \
		>stdout 2>stderr) 2>/dev/null || rc=$?
	reap "$sdir"
	if [ "$rc" = 0 ]; then
		ok=$((ok + 1))
		echo "OK       $rel"
	else
		msg=$(firstline "$sdir/stderr")
		[ "$rc" = 124 ] || [ "$rc" = 137 ] && msg="did not finish in $limit s"
		if grep -q 'not supported by stortest' "$sdir/stderr"; then
			refused=$((refused + 1))
			echo "REFUSED  $rel: $msg"
			# Group by the message after the position (file:line: job "x": ).
			key=$(grep -m1 'not supported by stortest' "$sdir/stderr" | sed -E 's/.*job\.fio:[0-9]+: (job "[^"]*": )?//; s/^(args\[[0-9]+\]: )//')
			why[$key]=$((${why[$key]:-0} + 1))
		else
			failed=$((failed + 1))
			echo "FAIL     $rel: $msg"
		fi
	fi
	rm -rf "$fdir" "$sdir"
done

echo
echo "files: $total; fio $("$fio" --version) runs $fiook"
pct=0
[ "$fiook" -gt 0 ] && pct=$((100 * ok / fiook))
echo "stortest runs $ok of $fiook files fio runs ($pct%); refused $refused, failed $failed"
if [ ${#why[@]} -gt 0 ]; then
	echo "refusals:"
	for k in "${!why[@]}"; do
		printf '%4d  %s\n' "${why[$k]}" "$k"
	done | sort -rn
fi
