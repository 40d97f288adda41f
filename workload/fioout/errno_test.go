package fioout

import (
	"bytes"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/latency"
	"stortest.dev/workload"
)

// fio prints one error of a job (ts->error) in all its outputs: the
// terse line's fifth field, the JSON "error" and the summary's err=. A
// job that no failed I/O but an errno ended (rate_min: EIO) reports that
// errno in each.
func TestJobErrnoSameInEveryOutput(t *testing.T) {
	jr := workload.NewJobResult(workload.Job{Name: "r", IODepth: 1}, 0, latency.FioLayout)
	jr.Err = fmt.Errorf("rate_min: %w", syscall.EIO)
	r := &workload.Result{Jobs: []*workload.JobResult{jr}}

	var terse bytes.Buffer
	require.NoError(t, WriteTerse(&terse, r))
	fields := strings.Split(terse.String(), ";")
	require.Greater(t, len(fields), 4)
	assert.Equal(t, "5", fields[4], "terse error field")

	doc := ourFioJSON(t, r, FormatJSON)
	assert.EqualValues(t, 5, at(doc, "jobs", "0", "error"))

	var sum bytes.Buffer
	require.NoError(t, WriteSummary(&sum, r))
	assert.Contains(t, sum.String(), "err= 5")
}
