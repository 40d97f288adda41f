package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --faults injects errors into the run; with continue_on_error the run
// goes on and the summary reports each failure with its offset.
func TestRunFaults(t *testing.T) {
	target := filepath.Join(t.TempDir(), "f")
	args := []string{"run", "--progress", "off", "--faults", "err_at=40k+4k:80k+4k,latency=100us",
		"--name=faulty", "--filename=" + target, "--size=1m", "--rw=read", "--ioengine=psync", "--continue_on_error=read"}
	var stdout, stderr bytes.Buffer
	code := runMain(args, &stdout, &stderr)
	require.Equal(t, 0, code, "stderr: %s", stderr.String())
	assert.Contains(t, stderr.String(), "injecting faults: err_at=40960+4096:81920+4096,latency=100µs")
	out := stdout.String()
	assert.Contains(t, out, "err= 5")
	assert.Contains(t, out, "errors=2 short=0")
	assert.Contains(t, out, "io error: read of 4096 bytes at offset 40960")
	assert.Contains(t, out, "io error: read of 4096 bytes at offset 81920")
	assert.Contains(t, out, "injected fault")

	// Without continue_on_error the first failure fails the command.
	stdout.Reset()
	stderr.Reset()
	code = runMain(args[:len(args)-1], &stdout, &stderr)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr.String(), "read of 4096 bytes at offset 40960")

	// A bad spec is a usage error.
	stderr.Reset()
	code = runMain([]string{"run", "--faults", "err_rate=2", "--name=x", "--filename=" + target}, &stdout, &stderr)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr.String(), "--faults")
}
