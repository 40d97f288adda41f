package workload

import (
	"slices"
	"time"
)

// OffsetPattern are fio's options that shape where each I/O goes beyond
// the region and the pattern: rw's offset modifier and block alignment.
// Job embeds it, so the fields read as Job's.
type OffsetPattern struct {
	// RWModifier is the number after rw's colon (fio's offset modifier).
	// For a sequential job it is added to the offset after each I/O, in
	// bytes: rw=write:4k leaves a 4 KiB hole after every write, and a
	// negative value walks the region backwards (rw=read:-8k with bs=4k).
	// The region wraps as fio's does: past the end to its start, before
	// the start to its end plus the modifier; a pass ends when an I/O
	// ends at the end of the region or the next one would not fit there,
	// or when it has moved the region's size. For a random job it is the
	// number of I/Os per random offset: the others follow the previous
	// I/O (RWSequencer "sequential", fio's default) or repeat its offset
	// ("identical").
	RWModifier  int64  `json:"rw_modifier,omitempty"`
	RWSequencer string `json:"rw_sequencer,omitempty"`
	// BlockAlign is fio's blockalign (ba): random offsets are multiples
	// of it rather than of the smallest block size. As in fio, it turns
	// the random map off.
	BlockAlign int64 `json:"blockalign,omitempty"`
}

// Measurement are fio's options that turn parts of the measurement off;
// Job embeds it, so the fields read as Job's.
type Measurement struct {
	// DisableLat, DisableClat, DisableSlat and DisableBW are fio's
	// disable_lat, disable_clat, disable_slat and disable_bw_measurement
	// (gtod_reduce sets all four): the latency histograms and the
	// per-second bandwidth and IOPS samples are not reported (N=0, as
	// fio prints them). stortest still takes its timestamps: they cost
	// it less than a clock read costs fio.
	DisableLat  bool `json:"disable_lat,omitempty"`
	DisableClat bool `json:"disable_clat,omitempty"`
	DisableSlat bool `json:"disable_slat,omitempty"`
	DisableBW   bool `json:"disable_bw_measurement,omitempty"`
	// BWAvgTime and IOPSAvgTime are fio's bwavgtime and iopsavgtime: the
	// window of each bandwidth and IOPS sample of the bw_* and iops_*
	// figures (summed from the job's slices, SliceInterval apart: a
	// window that is not a multiple of it is rounded up to one), in
	// whole ms; 0 means stortest's per-second samples (fio's default
	// window is 500 ms).
	BWAvgTime   time.Duration `json:"bwavgtime_ns,omitempty"`
	IOPSAvgTime time.Duration `json:"iopsavgtime_ns,omitempty"`
}

// RateFloor are fio's least rates a job must keep; Job embeds it, so the
// fields read as Job's.
type RateFloor struct {
	// RateMin (fio's rate_min, ratemin) and RateIOPSMin (rate_iops_min)
	// are the least bytes and I/Os per second per direction (read, write,
	// trim; those the job issues): a job that moves less over a RateCycle
	// (default 1 s), judged at its completions after its first 2 s, fails
	// with EIO, as fio's does. Each must stay under
	// the direction's Rate or RateIOPS.
	RateMin     [3]int64      `json:"rate_min,omitzero"`
	RateIOPSMin [3]int64      `json:"rate_iops_min,omitzero"`
	RateCycle   time.Duration `json:"rate_cycle_ns,omitempty"`
}

// Priority is the job's I/O priority (fio's prioclass and prio); the
// cmdprio options (CmdPrio) give single I/Os other ones. Job embeds it,
// so the fields read as Job's.
type Priority struct {
	// PrioClass and PrioLevel are fio's prioclass (1 real time, 2 best
	// effort, 3 idle) and prio (0-7, 0 highest): the job's I/O priority,
	// set on its thread (ioprio_set) and passed with each I/O the
	// cmdprio options leave alone, so logs and "prios" show it as fio's
	// do. prio alone is best effort; 0 keeps the thread's own.
	PrioClass int `json:"prioclass,omitempty"`
	PrioLevel int `json:"prio,omitempty"`
}

// Think are fio's thinktime options: pauses between a job's I/Os;
// Job embeds it, so the fields read as Job's.
type Think struct {
	// ThinkTime is fio's thinktime: after every ThinkTimeBlocks I/Os
	// (thinktime_blocks, default 1) the job waits for its I/Os in
	// flight, then stalls this long, spinning on the CPU for the first
	// ThinkTimeSpin (thinktime_spin) of it, as an application between
	// requests.
	ThinkTime       time.Duration `json:"thinktime_ns,omitempty"`
	ThinkTimeSpin   time.Duration `json:"thinktime_spin_ns,omitempty"`
	ThinkTimeBlocks int           `json:"thinktime_blocks,omitempty"`
}

// Ending are fio's options about when a job ends and what its end does
// to the others; Job embeds it, so the fields read as Job's.
type Ending struct {
	// NumberIOs is fio's number_ios: the job stops after this many I/Os
	// if nothing ends it sooner; it never extends the job.
	NumberIOs int64 `json:"number_ios,omitempty"`
	// ExitAll is fio's exitall: when this job finishes, the others
	// stop: those of its reporting group (ExitWhat "group", the
	// default; groups start at new_group and stonewall), every job
	// ("all"), or every job running at that moment, after which the
	// next stonewalled jobs start ("stonewall").
	ExitAll  bool   `json:"exitall,omitempty"`
	ExitWhat string `json:"exit_what,omitempty"`
}

// Zones are fio's zonemode options; Job embeds it, so the fields read as
// Job's.
type Zones struct {
	// ZoneMode is fio's zonemode: "" or "none", or "strided": the job
	// moves ZoneSize bytes (zonesize) in a zone of ZoneRange bytes
	// (zonerange, default zonesize), then goes on to the next zone,
	// ZoneRange+ZoneSkip (zoneskip) bytes further; past the end of the
	// file or device it starts again at the first. The zones cover the
	// whole file from Offset; Size is then the bytes the job moves.
	ZoneMode  string `json:"zonemode,omitempty"`
	ZoneRange int64  `json:"zonerange,omitempty"`
	ZoneSize  int64  `json:"zonesize,omitempty"`
	ZoneSkip  int64  `json:"zoneskip,omitempty"`
}

// BlockSpec is one direction's block sizes: BlockSize, or a range, or a
// split (Job's fields of the same names).
type BlockSpec struct {
	BlockSize      int64            `json:"bs,omitempty"`
	BlockSizeRange BlockSizeRange   `json:"bsrange,omitzero"`
	BlockSizeSplit []BlockSizeSplit `json:"bssplit,omitempty"`
}

func (b *BlockSpec) SameAs(o *BlockSpec) bool {
	return b.BlockSize == o.BlockSize && b.BlockSizeRange == o.BlockSizeRange && slices.Equal(b.BlockSizeSplit, o.BlockSizeSplit)
}

// blocksOf returns the job's own (read) block sizes.
func (j *Job) BlocksOf() BlockSpec {
	return BlockSpec{j.BlockSize, j.BlockSizeRange, j.BlockSizeSplit}
}

// withBlocks returns the job with b as its block sizes.
func (j Job) WithBlocks(b BlockSpec) Job {
	j.BlockSize, j.BlockSizeRange, j.BlockSizeSplit = b.BlockSize, b.BlockSizeRange, b.BlockSizeSplit
	j.WriteBlocks = nil
	return j
}

func ptr[T any](v T) *T { return &v }

// Option returns the name of the fio option that gives b: bssplit,
// bsrange or bs.
func (b BlockSpec) Option() string {
	switch {
	case len(b.BlockSizeSplit) > 0:
		return "bssplit"
	case !b.BlockSizeRange.IsZero():
		return "bsrange"
	}
	return "bs"
}

// Issues reports whether the pattern issues I/O in direction d.
func (rw RW) Issues(d Dir) bool {
	switch d {
	case DirRead:
		return rw.Reads()
	case DirWrite:
		return rw.Writes()
	case DirTrim:
		return rw.Trims()
	}
	return false
}

// strided reports whether the job's I/O goes zone by zone (zonemode=strided).
func (j *Job) Strided() bool { return j.ZoneMode == "strided" }
