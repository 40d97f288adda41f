package runner

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
)

// A signal during the layout of a large file stops it within a MiB, as
// it stops the I/O: a job at offset=9g used to write its 9 GiB out
// before the run looked at the signal.
func TestLayoutStopsOnCancel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big")
	job := workload.Job{Name: "big", Engine: "psync", RW: workload.Read, BlockSize: 4096, Filename: path,
		Offset: 64 << 30, Size: 16 << 20, NumJobs: 1}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := Run(ctx, job, workload.Options{})
	took := time.Since(start)
	require.Error(t, err)
	require.True(t, errors.Is(err, context.Canceled), "%v", err)
	require.ErrorContains(t, err, "stopped after")
	// 64 GiB at any disk's speed takes minutes; stopping takes one MiB.
	require.Less(t, took, 30*time.Second)
}
