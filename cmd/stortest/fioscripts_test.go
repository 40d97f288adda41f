package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"stortest.dev/internal/testenv"
)

// fio's own test scripts pass against stortest (make fio-tests): run when
// FIO_SRC names fio's repository (git clone https://github.com/axboe/fio
// && git -C fio checkout fio-3.33), skipped otherwise. FIO_TESTS picks the
// suites, default "latency" (t/latency_percentiles.py, about 3 minutes);
// "latency steadystate jobs" runs all three (about 10 minutes: give go
// test -timeout 20m).
func TestFioScripts(t *testing.T) {
	src := os.Getenv("FIO_SRC")
	if src == "" {
		t.Skip("FIO_SRC is not set: git clone https://github.com/axboe/fio && git -C fio checkout fio-3.33; FIO_SRC=$PWD/fio")
	}
	testenv.SkipShort(t, "runs fio's test scripts for minutes")
	suites := strings.Fields(os.Getenv("FIO_TESTS"))
	if len(suites) == 0 {
		suites = []string{"latency"}
	}
	cmd := exec.Command("bash", append([]string{"../../scripts/fio-tests.sh", src}, suites...)...)
	cmd.Env = append(os.Environ(), "FIO=") // against stortest, not fio
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("fio's scripts failed against stortest: %v", err)
	}
}
