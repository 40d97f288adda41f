package workload

import (
	"slices"

	"stortest.dev/latency"
)

// Priorities of single I/Os at run time: the picker and the per-priority
// statistics.

// prioPicker draws each I/O's priority, on the job's goroutine, without
// allocating.
type prioPicker struct {
	rng     uint64 // xorshift64 state
	pct     [2]int
	prio    [2]uint16 // cmdprio_percentage's priority per direction
	split   [2][]PrioSplit
	classes [2]int
	levels  [2]int
}

func newPrioPicker(c *CmdPrio, seed uint64) *prioPicker {
	p := &prioPicker{rng: seed | 1, pct: c.Percentage, split: c.BSSplit}
	for d := range 2 {
		p.classes[d] = max(c.Class[d], 1) // fio's default: real time
		p.levels[d] = c.Level[d]
		p.prio[d] = ioprio(p.classes[d], p.levels[d])
	}
	return p
}

// pick returns the ioprio of an I/O of direction d and size bs (0: none).
func (p *prioPicker) pick(d Dir, bs int64) uint16 {
	if d > DirWrite {
		return 0
	}
	p.rng ^= p.rng << 13
	p.rng ^= p.rng >> 7
	p.rng ^= p.rng << 17
	r := int(p.rng % 100)
	if len(p.split[d]) == 0 {
		if r < p.pct[d] {
			return p.prio[d]
		}
		return 0
	}
	cum := 0
	for _, s := range p.split[d] {
		if s.Size != bs {
			continue
		}
		cum += s.Percent
		if r < cum {
			class, level := s.Class, s.Level
			if class < 0 {
				class = p.classes[d]
			}
			if level < 0 {
				level = p.levels[d]
			}
			return ioprio(class, level)
		}
	}
	return 0
}

// prioSlots returns a direction's empty per-priority stats: the thread's
// own priority first, then every priority the job's options can give,
// each once, in ioprio order.
func prioSlots(c *CmdPrio, d Dir, layout latency.Layout) []PrioStats {
	ps := []uint16{0}
	if d <= DirWrite {
		p := newPrioPicker(c, 1)
		if p.pct[d] > 0 {
			ps = append(ps, p.prio[d])
		}
		for _, s := range c.BSSplit[d] {
			class, level := s.Class, s.Level
			if class < 0 {
				class = p.classes[d]
			}
			if level < 0 {
				level = p.levels[d]
			}
			if s.Percent > 0 {
				ps = append(ps, ioprio(class, level))
			}
		}
	}
	slices.Sort(ps)
	ps = slices.Compact(ps)
	out := make([]PrioStats, len(ps))
	for i, p := range ps {
		out[i].Class, out[i].Level = prioOf(p)
		out[i].Clat, out[i].Lat = latency.New(layout), latency.New(layout)
	}
	return out
}

// addPrio records one I/O's latencies under its priority p.
func addPrio(slots []PrioStats, p uint16, clat, lat uint64) {
	class, level := prioOf(p)
	for i := range slots {
		if slots[i].Class == class && slots[i].Level == level {
			slots[i].Clat.Add(clat)
			slots[i].Lat.Add(lat)
			return
		}
	}
}
