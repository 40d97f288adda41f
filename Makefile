# stortest's developer entry points. `make test` is what CI runs.
GO       ?= go
PKGS     ?= ./...
JUNIT    ?= junit.xml
FUZZTIME ?= 200000x

.PHONY: test bench fuzz lint build flake fio-tests fio-corpus trial perf-gate perf-record

# Unit, interop and device tests (device tests need root and loop devices;
# STORTEST_REQUIRE_DEVICE=1 turns their skips into failures). Packages run
# one at a time (-p 1): several measure latencies of tens of microseconds,
# which other packages' tests on the same two CPUs would distort.
test:
	$(GO) tool gotestsum --format testname --junitfile $(JUNIT) -- -p 1 -count=1 -timeout 12m $(PKGS)

# Go benchmarks and the side-by-side comparisons with fio.
bench:
	bash scripts/bench.sh

# stortest's own speed against fio 3.33's (internal/perfgate): CPU per
# I/O of null, psync, libaio and io_uring, both tools alternating in one
# process tree, compared through regress with the baselines in
# internal/perfgate/testdata; fails on a regression. The null engine is
# judged by stortest's own CPU per I/O too, when fio's own is within its
# recorded range, and measured again (up to 2 times) when it is not.
# Root for the loop devices; 1-3 minutes, with the host's load.
# PERF_TAGS=stortest_perfslow builds stortest 20 ns per I/O slower,
# which the gate must fail.
PERF_TAGS ?=
perf-gate:
	STORTEST_PERF_GATE=check STORTEST_PERF_TAGS='$(PERF_TAGS)' $(GO) test -count=1 -v -timeout 20m -run '^TestPerfGate$$' ./internal/perfgate

# One more session of the perf gate's baselines (its rounds in
# internal/perfgate/testdata/rounds, the baselines grown from them, the
# newest 10 kept). Record several, at different times and loads, on the
# CI host.
perf-record:
	STORTEST_PERF_GATE=append $(GO) test -count=1 -v -timeout 20m -run '^TestPerfGate$$' ./internal/perfgate

# Every fuzz target for FUZZTIME each: a count of executions (Nx), which
# cannot race the fuzz coordinator's deadline as a duration can. CI runs
# them briefly.
fuzz:
	FUZZTIME=$(FUZZTIME) bash scripts/fuzz.sh

# Flaky-test hunt: make test FLAKE_RUNS times (default 10, over an hour)
# under CPU and disk load, each run's JUnit file and log kept, then the
# failing tests with how often each failed. Needs stress-ng and xmllint;
# exits 1 if any run failed. See scripts/flake.sh.
flake:
	PKGS='$(PKGS)' bash scripts/flake.sh

# fio's own test scripts (t/latency_percentiles.py, t/steadystate_tests.py,
# t/run-fio-tests.py's job tests) against stortest through
# scripts/fio-wrapper. FIO_SRC is fio's repository at the installed fio's
# tag:
#   git clone https://github.com/axboe/fio && git -C fio checkout fio-3.33
# FIO_TESTS picks suites (latency steadystate jobs); FIO=/usr/bin/fio runs
# the same scripts against fio for the reference counts.
FIO_SRC   ?=
FIO_TESTS ?=
fio-tests:
	@if [ -z "$(FIO_SRC)" ] || [ ! -d "$(FIO_SRC)/t" ]; then \
		echo "make fio-tests needs FIO_SRC=<fio's repository>:"; \
		echo "  git clone https://github.com/axboe/fio && git -C fio checkout fio-3.33"; \
		echo "  make fio-tests FIO_SRC=\$$PWD/fio"; \
		exit 2; \
	fi
	bash scripts/fio-tests.sh $(FIO_SRC) $(FIO_TESTS)

# Other projects' job files (testdata/fio-corpus, origins and licences in
# its SOURCES) under fio and `stortest run`, shortened the same way, on a
# scratch loop device (root) or directory: the share stortest runs, its
# refusals by option, and every difference in job count or size-bound I/O
# counts. Exits 1 only on a stortest crash or hang. About 20 minutes.
# FIO_CORPUS_FILES picks files (project/file.fio).
FIO_CORPUS_FILES ?=
fio-corpus:
	python3 scripts/fio-corpus.py $(FIO_CORPUS_FILES)

# Try to break the command line (scripts/trial.py): bad inputs and faults
# by category, fio 3.33 judging job files; exits 1 on a panic, hang,
# silent wrong result, lost data or leftover. 20-30 minutes; root for the
# device, tmpfs and unprivileged-user cases.
trial:
	python3 scripts/trial.py

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) test -count=1 ./internal/lint

build:
	$(GO) build -o stortest ./cmd/stortest
