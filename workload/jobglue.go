package workload

import (
	"os"
	"strconv"

	"stortest.dev/engines"
)

// The runner's view of a Job.

// writes reports whether the job writes or trims (and so opens its file
// read-write).
func (j *Job) writes() bool { return j.RW.Modifies() }

func (j *Job) engineConfig(f *os.File, bufs [][]byte, size int64) engines.Config {
	return engines.Config{
		File: f, Direct: j.Direct, Depth: j.IODepth, Buffers: bufs,
		SQPoll: j.SQThreadPoll, FixedBufs: j.FixedBufs, RegisterFiles: j.RegisterFiles,
		HiPri: j.Hipri, NoWait: j.NoWait, Size: size,
		OneThread: true, // each worker runs on its own locked thread
		CPUChunk:  j.CPUChunks, CPUQsort: j.CPUMode == "qsort", StatType: j.StatType, Exec: j.execSpec(),
	}
}

func (j *Job) percentileList() []float64 {
	if len(j.PercentileList) == 0 {
		return DefaultPercentiles
	}
	return j.PercentileList
}

// fioOptions is the "job options" object of fio's JSON output: the
// options as a job file would give them.
func (j *Job) fioOptions() ordered {
	o := ordered{{"name", j.Name}}
	add := func(k, v string) { o = append(o, field{k, v}) }
	if j.Filename != "" {
		add("filename", j.Filename)
	}
	if j.AllowMountedWrite {
		add("allow_mounted_write", "1")
	}
	add("ioengine", j.Engine)
	add("rw", j.RW.String())
	if j.RW.Mixed() {
		add("rwmixread", strconv.Itoa(j.RWMixRead))
	}
	switch {
	case len(j.BlockSizeSplit) > 0 || !j.BlockSizeRange.IsZero():
		add("bs_max", strconv.FormatInt(j.MaxBlockSize(), 10))
	default:
		add("bs", FormatSize(j.BlockSize))
	}
	add("iodepth", strconv.Itoa(j.IODepth))
	if j.Direct {
		add("direct", "1")
	}
	if j.Size > 0 {
		add("size", FormatSize(j.Size))
	}
	if j.Runtime > 0 {
		add("runtime", strconv.FormatInt(j.Runtime.Milliseconds(), 10)+"ms")
	}
	if j.TimeBased {
		add("time_based", "1")
	}
	if j.NumJobs > 1 {
		add("numjobs", strconv.Itoa(j.NumJobs))
	}
	return o
}

// withDefaultFile returns the job for clone with fio's default file
// name when the job names none and its engine needs a file:
// jobname.clone.0 in the job's directory, else the working one (fio's
// $jobname.$jobnum.$filenum), laid out to the job's size as fio does.
func (j Job) withDefaultFile(clone int) Job {
	if j.Filename == "" && engines.NeedsFile(j.Engine) {
		j.Filename = j.dirFile(j.Name + "." + strconv.Itoa(clone) + ".0")
	}
	return j
}
