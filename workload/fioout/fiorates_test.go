package fioout

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
)

// fio's per-interval samples are integers, so its printed iops_min and
// iops_max bracket iops_mean; a run held near 400 IOPS whose seconds
// were a little longer or shorter than a second has fractional rates
// around 400, and those must print as fio would (whole samples), not as
// a max of 400 under a mean of 400.08. The last, partial interval is not
// a sample.
func TestFioRatesWholeSamples(t *testing.T) {
	secs := []workload.Second{
		{Dur: 999 * time.Millisecond, IOs: [workload.NumDirs]uint64{400}, Bytes: [workload.NumDirs]uint64{400 * 4096}},
		{Dur: 998 * time.Millisecond, IOs: [workload.NumDirs]uint64{400}, Bytes: [workload.NumDirs]uint64{400 * 4096}},
		{Dur: 1001 * time.Millisecond, IOs: [workload.NumDirs]uint64{401}, Bytes: [workload.NumDirs]uint64{401 * 4096}},
		{Dur: 300 * time.Millisecond, IOs: [workload.NumDirs]uint64{10}, Bytes: [workload.NumDirs]uint64{10 * 4096}},
	}
	bw, iops := fioRates(secs, workload.DirRead)
	require.Equal(t, 3, iops.n)
	require.Equal(t, 400.0, iops.min)
	require.Equal(t, 400.0, iops.max)
	require.Equal(t, 400.0, iops.mean)
	require.Equal(t, 1601.0, bw.min) // 400 * 4 KiB / 0.999 s = 1601.6 KiB/s
	require.Equal(t, 1603.0, bw.max)
	require.LessOrEqual(t, bw.min, bw.mean)
	require.GreaterOrEqual(t, bw.max, bw.mean)
}
