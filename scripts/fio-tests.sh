#!/usr/bin/env bash
# fio-tests.sh: fio's own test scripts, run against stortest.
#
#   scripts/fio-tests.sh FIO_SRC [latency|steadystate|jobs ...]
#   make fio-tests FIO_SRC=path [FIO_TESTS="latency jobs"]
#
# FIO_SRC is fio's repository at the tag of the fio the results are
# compared with (fio 3.33 here, Debian 12's):
#   git clone https://github.com/axboe/fio && git -C fio checkout fio-3.33
# The scripts run unmodified; fio is scripts/fio-wrapper, which execs
# `stortest run` with fio's argv:
#   latency      t/latency_percentiles.py -f WRAPPER  (22 cases; 8 need root)
#   steadystate  t/steadystate_tests.py WRAPPER       (10 cases; needs SciPy)
#   jobs         t/run-fio-tests.py -f WRAPPER -r FIO_SRC, the job tests
#                only (ids below 1000: the others are fio's C test
#                programs). Their requirements are fio's: tests needing
#                libaio skip unless FIO_SRC/config-host.h says
#                CONFIG_LIBAIO, as for fio itself. FIO_JOB_IDS="11 12 14"
#                runs only those tests.
# With FIO=path (e.g. FIO=/usr/bin/fio) the same scripts run against that
# fio instead, for the reference counts.
# Artifacts go to a fresh directory under ${TMPDIR:-/tmp}, kept and named
# at the end. One line per script: "<name>: P passed, F failed, S skipped";
# exit status 1 if any case failed, 2 for a usage error.
set -euo pipefail

usage() {
	echo "usage: $0 FIO_SRC [latency|steadystate|jobs ...]" >&2
	echo "  FIO_SRC: git clone https://github.com/axboe/fio && git -C fio checkout fio-3.33" >&2
	exit 2
}
[ $# -ge 1 ] || usage
if [ ! -f "$1/t/latency_percentiles.py" ]; then
	echo "$0: $1 is not fio's repository (no t/latency_percentiles.py)" >&2
	usage
fi
src=$(cd "$1" && pwd)
shift
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(latency steadystate jobs)
repo=$(cd "$(dirname "$0")/.." && pwd)

# The Python that has SciPy (steadystate_tests.py imports it): $PYTHON,
# python3, then the system's.
py=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import scipy.stats' 2>/dev/null; then
		py=$p
		break
	fi
done
if [ -z "$py" ]; then
	py=${PYTHON:-python3}
	echo "fio-tests: no Python with SciPy (apt-get install python3-scipy): steadystate will fail" >&2
fi

art=$(mktemp -d "${TMPDIR:-/tmp}/stortest-fio-tests.XXXXXX")
if [ -n "${FIO:-}" ]; then
	fio=$(command -v "$FIO")
	echo "fio-tests: running fio's scripts against $fio ($("$fio" --version))"
else
	(cd "$repo" && go build -o "$art/stortest" ./cmd/stortest)
	export STORTEST="$art/stortest"
	fio="$repo/scripts/fio-wrapper"
	echo "fio-tests: running fio's scripts against stortest through $fio"
fi
echo "fio-tests: fio's scripts from $src ($(git -C "$src" describe --tags 2>/dev/null || echo "no git tag"))"

failed=0
summary() { # name logfile: the script's own totals line
	local name=$1 log=$2 line
	line=$(grep -E '[0-9]+ (tests|test\(s\)) passed' "$log" | tail -1 || true)
	if [ -z "$line" ]; then
		echo "$name: did not finish (see $log)"
		failed=1
		return
	fi
	echo "$name: $line"
}

for s in "${suites[@]}"; do
	case $s in
	latency)
		mkdir -p "$art/latency"
		rc=0
		(cd "$art/latency" && "$py" "$src/t/latency_percentiles.py" -f "$fio" -a out >log 2>&1) || rc=$?
		summary latency_percentiles "$art/latency/log"
		;;
	steadystate)
		mkdir -p "$art/steadystate"
		rc=0
		(cd "$art/steadystate" && "$py" "$src/t/steadystate_tests.py" "$fio" >log 2>&1) || rc=$?
		line=$(grep -E 'test\(s\) PASSED' "$art/steadystate/log" | tail -1 || true)
		if [ -n "$line" ]; then
			echo "steadystate_tests: $line"
		else
			echo "steadystate_tests: stopped: $(grep -vE '^ ' "$art/steadystate/log" | tail -1) ($(grep -c '^PASSED' "$art/steadystate/log" || true) PASSED before)"
		fi
		;;
	jobs)
		mkdir -p "$art/jobs"
		rc=0
		ids=${FIO_JOB_IDS:-$(seq 1 999)}
		# shellcheck disable=SC2086 # one argument per id
		(cd "$art/jobs" && "$py" "$src/t/run-fio-tests.py" -f "$fio" -r "$src" -a out -o $ids >log 2>&1) || rc=$?
		grep -E '^Test [0-9]+ ' "$art/jobs/log" | grep -v 'User request' || true
		summary run-fio-tests "$art/jobs/log"
		;;
	*)
		echo "$0: unknown suite $s (want latency, steadystate or jobs)" >&2
		exit 2
		;;
	esac
	[ "$rc" -eq 0 ] || failed=1
done
echo "fio-tests: artifacts in $art"
exit $failed
