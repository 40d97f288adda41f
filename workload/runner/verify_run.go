package runner

import (
	"errors"
	"fmt"

	"stortest.dev/workload"
	"stortest.dev/workload/iogen"
)

// verifyWriter is a clone of the run that writes verified blocks: the
// base seed of its data (its generations add to it), its name and file.
type verifyWriter struct {
	seed uint64
	name string
	file string
}

// genSpan bounds a writer's generations: a block whose seed is within it
// above a writer's base seed was written by that writer.
const genSpan = 1 << 32

// addWriter appends clone (of j, as it runs) to ws if it writes verified
// blocks.
func addWriter(ws []verifyWriter, j *workload.Job, clone int) []verifyWriter {
	if j.Verify == workload.VerifyNone || !j.RW.Writes() || opensNoFile(j) {
		return ws
	}
	return append(ws, verifyWriter{seed: iogen.Seed(j, clone, uint64(clone)+1), name: fmt.Sprintf("%s.%d", j.Name, clone), file: j.Filename})
}

// overwritten tells a block that looks stale (an intact block of its
// offset, of another seed) but holds another writer's data: the jobs'
// regions overlap and the other job wrote it last, which is no lost
// write. It returns err, reclassified as iogen.CorruptOverwritten when so; it
// runs only on a failure.
func (s *ioSource) overwritten(err error) error {
	var e *iogen.VerifyError
	if s.writers == nil || !errors.As(err, &e) || e.Kind != iogen.CorruptStale || e.FoundSeed-s.seed < genSpan {
		return err
	}
	for _, w := range s.writers {
		if w.seed != s.seed && w.file == s.job.Filename && e.FoundSeed-w.seed < genSpan {
			e.Kind = iogen.CorruptOverwritten
			e.Detail = "by job " + w.name + ", which also writes this block: the jobs' regions overlap"
			return e
		}
	}
	return err
}
