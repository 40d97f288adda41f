#!/usr/bin/env bash
# Hunts flaky tests: runs `make test` FLAKE_RUNS times (default 10) while
# stress-ng keeps both CPUs busy (--cpu 2 --cpu-load $FLAKE_CPU_LOAD,
# default 80%) and a second load writes and reads the disk under
# ${TMPDIR:-/tmp}, where the tests' scratch files and loop devices live:
# fio with 64 KiB random I/O paced at $FLAKE_IO_RATE (default 10m, per
# direction) when fio is installed, else stress-ng --hdd 1, which is not
# paced (on a cloud disk it drains the burst budget, and later runs see a
# slower disk than earlier ones).
#
#   make flake                          # 10 runs of ./..., over an hour
#   FLAKE_RUNS=1 PKGS=./iostat make flake
#
# Each run's JUnit file (run-N.xml), log (run-N.log) and exit status
# (run-N.status) are kept in FLAKE_OUT (default /tmp/stortest-flake-<date>),
# with summary.txt: each run's status and wall time, then every failing
# test with the number of runs it failed in (also printed when the script
# is interrupted, for the runs that finished; `flake.sh --report DIR`
# prints it again). Exits 1 if any run failed, 2 when it cannot run.
# Needs stress-ng, xmllint (libxml2-utils) and, for `make test`'s loop
# devices, root. The loads are started and ended here, by pid, also when
# the script is interrupted or killed with SIGTERM.
set -uo pipefail
cd "$(dirname "$0")/.."

runs=${FLAKE_RUNS:-10}
pkgs=${PKGS:-./...}
cpu_load=${FLAKE_CPU_LOAD:-80}
io_rate=${FLAKE_IO_RATE:-10m}
out=${FLAKE_OUT:-/tmp/stortest-flake-$(date +%Y%m%d-%H%M%S)}

die() {
	echo "flake.sh: $*" >&2
	exit 2
}

# failures prints, for each finished run in $out (run-N.status), each
# test case with a failure or error in its JUnit file once, as "<package>
# <test>"; a failed run with no such test case (a build failure, a panic
# before the report) prints a row of its own.
failures() {
	local st i f n k
	for st in "$out"/run-*.status; do
		[[ -e $st ]] || continue
		i=${st##*/run-}
		i=${i%.status}
		f=$out/run-$i.xml
		n=0
		if [[ -s $f ]]; then
			n=$(xmllint --xpath 'count(//testcase[failure or error])' "$f" 2>/dev/null || echo 0)
		fi
		for ((k = 1; k <= n; k++)); do
			# The suite's name, not the case's classname, which a build
			# failure's case leaves empty.
			xmllint --xpath "concat(string((//testcase[failure or error])[$k]/ancestor::testsuite[1]/@name), ' ', string((//testcase[failure or error])[$k]/@name))" "$f"
			echo # older xmllint ends a string without a newline
		done | grep . | sort -u
		if ((n == 0)) && [[ $(<"$st") != 0 ]]; then
			echo "(no failing test case in its JUnit file: see run-$i.log)"
		fi
	done
}

# table prints how many finished runs failed and the failing tests, most
# frequent first, and returns 1 if any run failed.
table() {
	local done=0 failed=0 st
	for st in "$out"/run-*.status; do
		[[ -e $st ]] || continue
		done=$((done + 1))
		[[ $(<"$st") == 0 ]] || failed=$((failed + 1))
	done
	echo
	if ((failed == 0)); then
		echo "no failures in $done runs"
		return 0
	fi
	echo "$failed of $done runs failed; failing tests (runs failed in, package, test):"
	failures | sort | uniq -c | sort -k1,1nr -k2 |
		awk -v n="$done" '{ c = $1; $1 = ""; printf "%4d/%d %s\n", c, n, substr($0, 2) }'
	return 1
}

if [[ ${1:-} == --report ]]; then
	out=${2:?usage: flake.sh --report RESULTS_DIR}
	command -v xmllint >/dev/null || die "needs xmllint (Debian/Ubuntu: apt-get install libxml2-utils)"
	table
	exit
fi
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "FLAKE_RUNS=$runs: want a count of runs (1 or more)"
[[ $cpu_load =~ ^[0-9]+$ && $cpu_load -le 100 ]] || die "FLAKE_CPU_LOAD=$cpu_load: want a percentage"
for tool in stress-ng xmllint make; do
	command -v "$tool" >/dev/null ||
		die "needs $tool (Debian/Ubuntu: apt-get install $([[ $tool == xmllint ]] && echo libxml2-utils || echo "$tool"))"
done
mkdir -p "$out" || die "cannot make $out"
out=$(realpath "$out")
compgen -G "$out/run-*" >/dev/null && die "$out holds the runs of an earlier hunt: give another FLAKE_OUT"
io_dir=$(mktemp -d "${TMPDIR:-/tmp}/stortest-flake-io.XXXXXX") || die "cannot make a directory for the I/O load"

# Every process the script starts runs in its own session (setsid), so
# that it, and everything it starts, can be ended by its id as a group.
pids=()
stop() {
	local p
	for p in "$@"; do kill -TERM -- "-$p" 2>/dev/null; done
	for _ in $(seq 100); do # 10 s for the groups to end on their own
		local alive=0
		for p in "$@"; do kill -0 -- "-$p" 2>/dev/null && alive=1; done
		((alive)) || return 0
		sleep 0.1
	done
	for p in "$@"; do kill -KILL -- "-$p" 2>/dev/null; done
}
cleanup() {
	trap - EXIT
	((${#pids[@]})) && stop "${pids[@]}"
	wait 2>/dev/null
	rm -rf "$io_dir"
}
trap cleanup EXIT
# On a signal: end the run under way and the loads, then the table of
# the runs that finished.
interrupted() {
	trap '' INT TERM # one is enough; the ending takes 10 s at most
	cleanup
	echo "flake.sh: $1; the runs that finished are in $out" >&2
	table | tee -a "$out/summary.txt"
	exit "$2"
}
trap 'interrupted interrupted 130' INT
trap 'interrupted terminated 143' TERM

setsid stress-ng --cpu 2 --cpu-load "$cpu_load" --timeout 0 >"$out/load-cpu.log" 2>&1 &
pids+=($!)
if command -v fio >/dev/null; then
	io_what="fio, 64 KiB random reads and writes at $io_rate/s each in $io_dir"
	setsid fio --name=flake-neighbour --directory="$io_dir" --size=512M --rw=randrw --bs=64k --direct=1 \
		--ioengine=psync --thread --rate="$io_rate,$io_rate" --time_based --runtime=86400 >"$out/load-io.log" 2>&1 &
else
	io_what="stress-ng --hdd 1 (unpaced) in $io_dir"
	setsid stress-ng --hdd 1 --hdd-bytes 256M --temp-path "$io_dir" --timeout 0 >"$out/load-io.log" 2>&1 &
fi
pids+=($!)
echo "flake.sh: $runs runs of make test PKGS=$pkgs; results in $out"
echo "flake.sh: load: stress-ng --cpu 2 --cpu-load $cpu_load (pid ${pids[0]}); $io_what (pid ${pids[1]})"
sleep 1
for p in "${pids[@]}"; do
	kill -0 "$p" 2>/dev/null || die "a load did not start: see $out/load-*.log"
done

summary=$out/summary.txt
: >"$summary"
for ((i = 1; i <= runs; i++)); do
	start=$(date +%s.%N)
	# In the background, so that a signal to this script is handled at
	# once: the trap ends the run's process group, whose test binaries
	# cancel their workloads and detach their loop devices on SIGTERM.
	setsid make test PKGS="$pkgs" JUNIT="$out/run-$i.xml" >"$out/run-$i.log" 2>&1 &
	pids+=($!)
	wait $!
	status=$?
	unset 'pids[${#pids[@]}-1]'
	echo "$status" >"$out/run-$i.status"
	secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	result=ok
	((status == 0)) || result="FAIL (exit $status)"
	echo "run $i/$runs: $result in $secs s" | tee -a "$summary"
done
table | tee -a "$summary"
