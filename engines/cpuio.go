package engines

import (
	"slices"
	"time"
)

// DefaultCPUChunk is fio's cpuchunks default: each cpuio unit burns the
// CPU this long.
const DefaultCPUChunk = 50 * time.Millisecond

// cpuio is fio's "cpuio": no file and no data; each unit keeps the
// thread's CPU busy for Config.CPUChunk and completes with Res 0 (fio
// counts its units as reads of no bytes). The duty cycle (fio's cpuload)
// is the runner's: it idles between units. The busy loop reads the clock
// until the chunk is over; with CPUQsort it sorts a scrambled array
// between readings, a heavier load (fio's cpumode=qsort). fio's qsort
// mode runs a count of sorts it calibrated at start, so its units can
// last several times the chunk on a loaded machine; here a unit lasts
// the chunk, within one sort (tens of microseconds).
type cpuio struct {
	chunk time.Duration
	qsort bool
	arr   []uint32 // qsort's array, scrambled again before each sort
	rnd   uint64   // xorshift state
	inline
}

var _ Engine = (*cpuio)(nil)

// cpuSortLen is the length of the qsort mode's array: 4096 entries sort
// in some tens of microseconds, so the clock is read often enough.
const cpuSortLen = 4096

func newCPUIO(cfg Config) (Engine, error) {
	e := &cpuio{chunk: cfg.CPUChunk, qsort: cfg.CPUQsort, rnd: 0x9e3779b97f4a7c15}
	if e.chunk <= 0 {
		e.chunk = DefaultCPUChunk
	}
	if e.qsort {
		e.arr = make([]uint32, cpuSortLen)
	}
	return e, nil
}

func (e *cpuio) Name() string { return "cpuio" }

func (e *cpuio) Flags() Flags { return FlagSync | FlagNoIO | FlagNoAlign }

func (e *cpuio) Queue(u *Unit) (Status, error) {
	if e.closed {
		return Busy, ErrClosed
	}
	e.burn()
	u.Res = 0
	return Completed, nil
}

// burn keeps the CPU busy for the chunk.
func (e *cpuio) burn() {
	start := time.Now()
	for time.Since(start) < e.chunk {
		if e.qsort {
			for i := range e.arr {
				e.rnd ^= e.rnd << 13
				e.rnd ^= e.rnd >> 7
				e.rnd ^= e.rnd << 17
				e.arr[i] = uint32(e.rnd)
			}
			slices.Sort(e.arr)
			continue
		}
		for range 1000 {
			e.rnd = e.rnd*6364136223846793005 + 1442695040888963407
		}
	}
}

func (e *cpuio) Explain(u *Unit) error {
	if u.Res >= 0 {
		return nil
	}
	return explain(u, explainCtx{engine: "cpuio"})
}

func (e *cpuio) Close() error {
	e.closed = true
	return nil
}
