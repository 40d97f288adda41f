package validate

import (
	"slices"

	"stortest.dev/workload"
)

// FioVerifyNeverStarts is fio 3.33's notice (after "fio: ") for a
// write-only, time-based job with verify on and no verify_backlog. It is
// true of engines that complete I/Os at once (psync, sync, pvsync2,
// mmap): the write phase takes the whole runtime and nothing is read
// back. With an engine that queues them (libaio, io_uring, posixaio) fio
// prints it all the same and reads back every size's worth of writes
// (see package fiojob's doc, "Rate and verify"); so does stortest.
const FioVerifyNeverStarts = "verification read phase will never start because write phase uses all of runtime"

// FioMultipleWriters is fio 3.33's notice (after "fio: ") for a job
// with verify, writes and numjobs above 1 on one file name.
const FioMultipleWriters = "multiple writers may overwrite blocks that belong to other jobs. This can cause verification failures."

// Warnings returns notices about a valid job (normalized first) that runs
// but not as its options suggest; nil for most jobs. Callers print them
// before the run: stortest run on stderr, stortest.Run in the test log.
//
// Verify under time_based: as fio 3.33 does, a write-only job writes for
// the whole runtime and reads nothing back (checked 0, no failure), with
// fio's notice (FioVerifyNeverStarts). A time-based mixed job is not
// read back either, by fio 3.33 (no verify reads under --debug=verify)
// nor by stortest; fio says nothing, stortest says so.
//
// Verify with numjobs above 1 on one file: fio's notice that the clones
// may overwrite each other's blocks (FioMultipleWriters); a block another
// clone overwrote fails as CorruptOverwritten, not as a lost write.
func Warnings(j *workload.Job) []string {
	n := j.Normalized()
	w := slices.Clone(n.Notes)
	if n.Verify != workload.VerifyNone && n.RW.Writes() && !n.NoVerifyPhase && n.NumJobs > 1 && n.Filename != "" {
		w = append(w, FioMultipleWriters)
	}
	if n.Verify != workload.VerifyNone && n.TimeBased && n.RW.Writes() && n.VerifyBacklog == 0 {
		if n.RW.Reads() {
			w = append(w, "verify: the writes of a time-based "+n.RW.String()+" job are not read back (stortest verifies jobs that end with their size)")
		} else {
			w = append(w, FioVerifyNeverStarts)
		}
	}
	return w
}
