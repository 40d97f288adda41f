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
	bw, iops := fioRates(&workload.JobResult{Seconds: secs}, workload.DirRead)
	require.Equal(t, 3, iops.n)
	require.Equal(t, 400.0, iops.min)
	require.Equal(t, 400.0, iops.max)
	require.Equal(t, 400.0, iops.mean)
	require.Equal(t, 1601.0, bw.min) // 400 * 4 KiB / 0.999 s = 1601.6 KiB/s
	require.Equal(t, 1603.0, bw.max)
	require.LessOrEqual(t, bw.min, bw.mean)
	require.GreaterOrEqual(t, bw.max, bw.mean)
}

// bwavgtime and iopsavgtime make each sample a window of that many ms,
// summed from the slices: fio's bw_samples and iops_samples over a
// 2 s run are 2000/bwavgtime, the partial window left out.
func TestFioRatesAvgTime(t *testing.T) {
	j := &workload.JobResult{Job: workload.Job{Measurement: workload.Measurement{BWAvgTime: 500 * time.Millisecond, IOPSAvgTime: 250 * time.Millisecond}}}
	for i := range 21 { // 2.1 s of 100 ms slices, 10 I/Os of 4 KiB each, 20 in the 6th
		n := uint64(10)
		if i == 5 {
			n = 20
		}
		j.Slices = append(j.Slices, workload.Slice{T: time.Duration(i+1) * 100 * time.Millisecond, Dur: 100 * time.Millisecond,
			IOs: [workload.NumDirs]uint64{n}, Bytes: [workload.NumDirs]uint64{n * 4096}})
		if i%10 == 9 {
			j.Seconds = append(j.Seconds, workload.Second{Dur: time.Second, IOs: [workload.NumDirs]uint64{110}, Bytes: [workload.NumDirs]uint64{110 * 4096}})
		}
	}
	bw, iops := fioRates(j, workload.DirRead)
	require.Equal(t, 4, bw.n)
	require.Equal(t, 400.0, bw.min) // 50 I/Os of 4 KiB in 0.5 s
	require.Equal(t, 480.0, bw.max) // 60 in the second window
	require.Equal(t, 7, iops.n)     // a window is whole slices: 250 ms takes 3, 300 ms, 7 in 2.1 s
	require.Equal(t, 100.0, iops.min)
	j.Job.BWAvgTime, j.Job.IOPSAvgTime = 0, 0
	bw, _ = fioRates(j, workload.DirRead)
	require.Equal(t, 2, bw.n) // the per-second samples
}
