package runner

import (
	"os"

	"stortest.dev/engines"
	"stortest.dev/workload"
)

// The runner's view of a Job.

// writes reports whether the job writes or trims (and so opens its file
// read-write).
func writes(j *workload.Job) bool { return j.RW.Modifies() }

func engineConfig(j *workload.Job, f *os.File, bufs [][]byte, size int64) engines.Config {
	return engines.Config{
		File: f, Direct: j.Direct, Depth: j.IODepth, Buffers: bufs,
		SQPoll: j.SQThreadPoll, FixedBufs: j.FixedBufs, TryFixedBufs: !j.FixedBufs && !j.NoFixedBufs,
		RegisterFiles: j.RegisterFiles, HiPri: j.Hipri, NoWait: j.NoWait, Size: size,
		OneThread: true, // each worker runs on its own locked thread
		CPUChunk:  j.CPUChunks, CPUQsort: j.CPUMode == "qsort", StatType: j.StatType, Exec: execSpec(j),
	}
}

// withDefaultFile returns the job for clone with fio's default file
// name when the job names none and its engine needs a file: its
// filename_format (fio's default $jobname.$jobnum.$filenum) for file 0
// in the job's directory, else the working one, laid out to the job's
// size as fio does.
func withDefaultFile(j workload.Job, clone int) workload.Job {
	if j.Filename == "" && engines.NeedsFile(j.Engine) && !j.MultiFiles() {
		j.Filename = j.FileName(clone, 0)
	}
	return j
}
