package workload

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"stortest.dev/clock"
	"stortest.dev/latency"
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

// dropDisabled empties the histograms the job's disable_* options leave
// unreported, once the job is over.
func (r *JobResult) dropDisabled() {
	j := &r.Job
	for d := range r.Dirs {
		s := &r.Dirs[d]
		for _, h := range [...]struct {
			off bool
			h   *latency.Histogram
		}{{j.DisableLat, s.Lat}, {j.DisableClat, s.Clat}, {j.DisableSlat, s.Slat}} {
			if h.off && h.h != nil {
				h.h.Reset()
			}
		}
	}
}

// parseRWModifier parses fio's rw value with its optional ":N" offset
// modifier: a size, negative for backwards, for sequential patterns; a
// count of I/Os for random ones.
func parseRWModifier(v string) (RW, int64, error) {
	name, mod, ok := strings.Cut(v, ":")
	rw, err := ParseRW(name)
	if err != nil || !ok {
		return rw, 0, err
	}
	neg := strings.HasPrefix(mod, "-")
	n, err := ParseSize(strings.TrimPrefix(mod, "-"))
	if err != nil {
		return rw, 0, fmt.Errorf("rw=%s: bad offset modifier: %w", v, err)
	}
	if rw.Random() && neg {
		return rw, 0, fmt.Errorf("rw=%s: a random pattern's modifier is a count of I/Os, not negative", v)
	}
	if neg {
		n = -n
	}
	return rw, n, nil
}

// rwString prints rw with its modifier, as fio writes it.
func (j *Job) rwString() string {
	if j.RWModifier == 0 {
		return j.RW.String()
	}
	if j.RWModifier < 0 {
		return j.RW.String() + ":-" + FormatSize(-j.RWModifier)
	}
	if j.RW.Random() {
		return j.RW.String() + ":" + strconv.FormatInt(j.RWModifier, 10)
	}
	return j.RW.String() + ":" + FormatSize(j.RWModifier)
}

// validateExtra checks OffsetPattern's, Measurement's, RateFloor's,
// Priority's, Think's, Ending's and Zones' fields of the normalized job: the option
// and why, or "".
func (j *Job) validateExtra() (string, string) {
	switch {
	case j.RWModifier != 0 && (j.RW.TrimWrites()):
		return "rw", "an offset modifier is not supported with " + j.RW.String()
	case j.RWSequencer != "" && j.RWSequencer != "sequential" && j.RWSequencer != "identical":
		return "rw_sequencer", fmt.Sprintf("unknown %q", j.RWSequencer)
	case j.PrioClass < 0 || j.PrioClass > 3:
		return "prioclass", fmt.Sprintf("%d is not 1, 2 or 3", j.PrioClass)
	case j.PrioLevel < 0 || j.PrioLevel > 7:
		return "prio", fmt.Sprintf("%d is not in [0, 7]", j.PrioLevel)
	case j.PrioLevel != 0 && j.PrioClass == 0:
		return "prio", "needs a class (prioclass)"
	case j.ThinkTime < 0 || j.ThinkTimeSpin < 0:
		return "thinktime", "negative"
	case j.ThinkTimeSpin > j.ThinkTime:
		return "thinktime_spin", fmt.Sprintf("%v is longer than thinktime %v", j.ThinkTimeSpin, j.ThinkTime)
	case j.ThinkTimeBlocks < 0:
		return "thinktime_blocks", fmt.Sprintf("negative (%d)", j.ThinkTimeBlocks)
	case j.NumberIOs < 0:
		return "number_ios", fmt.Sprintf("negative (%d)", j.NumberIOs)
	case j.ExitWhat != "" && j.ExitWhat != "group" && j.ExitWhat != "stonewall" && j.ExitWhat != "all":
		return "exit_what", fmt.Sprintf("unknown %q", j.ExitWhat)
	case j.ZoneMode != "" && j.ZoneMode != "none" && j.ZoneMode != "strided":
		return "zonemode", fmt.Sprintf("unknown %q", j.ZoneMode)
	case j.ZoneRange < 0 || j.ZoneSize < 0 || j.ZoneSkip < 0:
		return "zonesize", "negative"
	case j.strided() && j.ZoneSize == 0:
		return "zonesize", "zonemode=strided needs zonesize"
	case j.strided() && j.ZoneSize < j.MaxBlockSize():
		return "zonesize", fmt.Sprintf("%s is smaller than the block size %s", FormatSize(j.ZoneSize), FormatSize(j.MaxBlockSize()))
	case j.strided() && (j.RWModifier != 0 || j.RW.TrimWrites()):
		return "zonemode", "strided zones do not take an offset modifier or trimwrite"
	case j.RateCycle < 0:
		return "rate_cycle", fmt.Sprintf("negative (%v)", j.RateCycle)
	case j.BlockAlign < 0:
		return "blockalign", fmt.Sprintf("negative (%d)", j.BlockAlign)
	case j.BlockAlign > 0 && j.Direct && j.BlockAlign%512 != 0:
		return "blockalign", fmt.Sprintf("%d is not a multiple of 512, which direct=1 needs", j.BlockAlign)
	}
	for d := range 3 {
		switch {
		case j.RateMin[d] < 0 || j.RateIOPSMin[d] < 0:
			return "rate_min", "negative"
		case j.RateMin[d] > 0 && j.Rate[d] > 0 && j.RateMin[d] > j.Rate[d],
			j.RateIOPSMin[d] > 0 && j.RateIOPS[d] > 0 && j.RateIOPSMin[d] > int64(j.RateIOPS[d]):
			return "rate_min", "the minimum rate exceeds the rate, " + Dir(d).String() + " (fio refuses it too)"
		}
	}
	return "", ""
}

// extraString prints those options but rw's modifier (see rwString).
func (j *Job) extraString() string {
	var b strings.Builder
	if j.RWSequencer != "" && j.RWSequencer != "sequential" {
		b.WriteString("rw_sequencer=" + j.RWSequencer + "\n")
	}
	if j.BlockAlign != 0 {
		b.WriteString("blockalign=" + FormatSize(j.BlockAlign) + "\n")
	}
	if j.FillDevice {
		b.WriteString("fill_device=1\n")
	}
	if j.ThinkTime != 0 {
		b.WriteString("thinktime=" + FormatTime(j.ThinkTime) + "\n")
	}
	if j.ThinkTimeSpin != 0 {
		b.WriteString("thinktime_spin=" + FormatTime(j.ThinkTimeSpin) + "\n")
	}
	if j.ThinkTimeBlocks > 1 {
		b.WriteString("thinktime_blocks=" + strconv.Itoa(j.ThinkTimeBlocks) + "\n")
	}
	if j.NumberIOs != 0 {
		b.WriteString("number_ios=" + strconv.FormatInt(j.NumberIOs, 10) + "\n")
	}
	if j.ExitAll {
		b.WriteString("exitall=1\n")
	}
	if j.ExitWhat != "" && j.ExitWhat != "group" {
		b.WriteString("exit_what=" + j.ExitWhat + "\n")
	}
	if j.strided() {
		b.WriteString("zonemode=strided\nzonesize=" + FormatSize(j.ZoneSize) + "\n")
		if j.ZoneRange != 0 {
			b.WriteString("zonerange=" + FormatSize(j.ZoneRange) + "\n")
		}
		if j.ZoneSkip != 0 {
			b.WriteString("zoneskip=" + FormatSize(j.ZoneSkip) + "\n")
		}
	}
	if j.PrioClass != 0 {
		b.WriteString("prioclass=" + strconv.Itoa(j.PrioClass) + "\nprio=" + strconv.Itoa(j.PrioLevel) + "\n")
	}
	if j.RateMin != [3]int64{} {
		b.WriteString("rate_min=" + formatTriple(j.RateMin, func(v int64, _ int) string { return FormatSize(v) }) + "\n")
	}
	if j.RateIOPSMin != [3]int64{} {
		b.WriteString("rate_iops_min=" + formatTriple(j.RateIOPSMin, strconv.FormatInt) + "\n")
	}
	if j.RateCycle != 0 {
		b.WriteString("rate_cycle=" + strconv.FormatInt(j.RateCycle.Milliseconds(), 10) + "\n")
	}
	for _, f := range [...]struct {
		name string
		on   bool
	}{{"disable_lat", j.DisableLat}, {"disable_clat", j.DisableClat}, {"disable_slat", j.DisableSlat}, {"disable_bw_measurement", j.DisableBW}} {
		if f.on {
			b.WriteString(f.name + "=1\n")
		}
	}
	return b.String()
}

// BlockSpec is one direction's block sizes: BlockSize, or a range, or a
// split (Job's fields of the same names).
type BlockSpec struct {
	BlockSize      int64            `json:"bs,omitempty"`
	BlockSizeRange BlockSizeRange   `json:"bsrange,omitzero"`
	BlockSizeSplit []BlockSizeSplit `json:"bssplit,omitempty"`
}

func (b *BlockSpec) equal(o *BlockSpec) bool {
	return b.BlockSize == o.BlockSize && b.BlockSizeRange == o.BlockSizeRange && slices.Equal(b.BlockSizeSplit, o.BlockSizeSplit)
}

// blocksOf returns the job's own (read) block sizes.
func (j *Job) blocksOf() BlockSpec {
	return BlockSpec{j.BlockSize, j.BlockSizeRange, j.BlockSizeSplit}
}

// withBlocks returns the job with b as its block sizes.
func (j Job) withBlocks(b BlockSpec) Job {
	j.BlockSize, j.BlockSizeRange, j.BlockSizeSplit = b.BlockSize, b.BlockSizeRange, b.BlockSizeSplit
	j.WriteBlocks = nil
	return j
}

// dirBlocks is a block size option given per direction, "r,w[,t]".
type dirBlocks struct {
	option string
	parts  [3]string
	set    func(*jobState, string) error
}

// perDirection wraps a block size option's setter for fio's
// per-direction form: "r,w,t", a blank or missing write value being the
// read one and a missing trim value the write one. Values that differ are
// resolved when the job's section ends (finishBlockSizes).
func perDirection(option string, one func(*jobState, string) error) func(*jobState, string) error {
	return func(st *jobState, v string) error {
		st.dirBlocks = nil
		parts := strings.Split(v, ",")
		if len(parts) > 3 {
			return fmt.Errorf("%q: at most three values (read,write,trim)", v)
		}
		var p [3]string
		for i := range p {
			switch {
			case i < len(parts) && strings.TrimSpace(parts[i]) != "":
				p[i] = strings.TrimSpace(parts[i])
			case i == 0:
				return fmt.Errorf("%q: the read value is missing", v)
			default:
				p[i] = p[i-1]
			}
		}
		if p[1] != p[0] || p[2] != p[0] {
			for _, x := range p[1:] { // each is checked where it is written
				if err := one(&jobState{}, x); err != nil {
					return err
				}
			}
			st.dirBlocks = &dirBlocks{option: option, parts: p, set: one}
		}
		return one(st, p[0])
	}
}

// finishBlockSizes resolves block sizes given per direction: a job that
// issues one direction takes that direction's (a trimwrite job the trim
// ones for its trims and writes alike, as fio 3.33 issues them: t/jobs/
// t0023.fio); a job that reads and writes keeps the read ones and gets
// WriteBlocks.
func (p *parser) finishBlockSizes(st *jobState) error {
	d := st.dirBlocks
	if d == nil {
		return nil
	}
	j := &st.job
	of := func(i int) BlockSpec {
		sc := &jobState{}
		_ = d.set(sc, d.parts[i]) // checked when the option was read
		return sc.job.blocksOf()
	}
	switch {
	case j.RW.Trims():
		*j = j.withBlocks(of(2))
	case j.RW.Mixed():
		if w := of(1); !w.equal(ptr(j.blocksOf())) {
			j.WriteBlocks = &w
		}
	case j.RW.Writes():
		*j = j.withBlocks(of(1))
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// option returns the fio option and value that give b.
func (b BlockSpec) option() (string, string) {
	switch {
	case len(b.BlockSizeSplit) > 0:
		return "bssplit", b.asSplit()
	case !b.BlockSizeRange.IsZero():
		return "bsrange", b.BlockSizeRange.String()
	}
	return "bs", FormatSize(cmp.Or(b.BlockSize, DefaultBlockSize))
}

// asSplit prints b's split in bssplit's syntax.
func (b BlockSpec) asSplit() string {
	parts := make([]string, len(b.BlockSizeSplit))
	for i, s := range b.BlockSizeSplit {
		parts[i] = FormatSize(s.Size) + "/" + strconv.Itoa(s.Percent)
	}
	return strings.Join(parts, ":")
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

// minRate checks a job's rate_min and rate_iops_min as fio does: at
// completions, from 2 s after the start; the first such completion sets
// the baseline, and each one at least a rate_cycle after the last check
// compares what moved since then with the minimum. A job whose I/Os are
// further apart than that (rate=1250 with 4 KiB blocks) is judged at its
// completions only, as fio judges it.
type minRate struct {
	cycle      int64 // ns
	based      bool  // the baseline is set
	at, next   int64 // the last check; the earliest next one
	bytes, ios [3]uint64
}

func newMinRate(j *Job, start int64) *minRate {
	if j.RateMin == [3]int64{} && j.RateIOPSMin == [3]int64{} {
		return nil
	}
	cycle := int64(j.RateCycle)
	if cycle <= 0 {
		cycle = int64(time.Second)
	}
	return &minRate{cycle: cycle, next: start + 2*int64(time.Second)}
}

// check is called with the time of a completion at or after m.next and
// the job's totals: the error of the first direction below its minimum
// since the last check, or nil.
func (m *minRate) check(j *Job, dirs *[NumDirs]DirStats, now int64) error {
	el := now - m.at
	var err error
	for d := range 3 {
		db, di := dirs[d].Bytes-m.bytes[d], dirs[d].IOs-m.ios[d]
		m.bytes[d], m.ios[d] = dirs[d].Bytes, dirs[d].IOs
		if err != nil || !m.based || el <= 0 || !j.RW.Issues(Dir(d)) {
			continue
		}
		if min := j.RateMin[d]; min > 0 {
			if got := int64(float64(db) * 1e9 / float64(el)); got < min {
				err = fmt.Errorf("%w: rate_min=%dB/s not met, got %dB/s", syscall.EIO, min, got)
			}
		}
		if min := j.RateIOPSMin[d]; min > 0 && err == nil {
			if got := int64(float64(di) * 1e9 / float64(el)); got < min {
				err = fmt.Errorf("%w: rate_iops_min=%d not met, got %d IOPS", syscall.EIO, min, got)
			}
		}
	}
	m.based, m.at, m.next = true, now, now+m.cycle
	return err
}

// jobIOPrio is the ioprio value of the job's own I/O: 0 when it keeps
// the thread's.
func (j *Job) jobIOPrio() uint16 {
	if j.PrioClass == 0 {
		return 0
	}
	return ioprio(j.PrioClass, j.PrioLevel)
}

// setThreadIOPrio sets the calling thread's I/O priority (the runner locks
// the job to its thread) and returns a function that restores the one it
// had, for the thread goes back to the Go runtime after the job.
func setThreadIOPrio(p uint16) (restore func(), err error) {
	const whoProcess = 1 // IOPRIO_WHO_PROCESS: with 0, the calling thread
	old, _, e := unix.Syscall(unix.SYS_IOPRIO_GET, whoProcess, 0, 0)
	if e != 0 {
		return nil, fmt.Errorf("ioprio_get: %w", e)
	}
	if _, _, e := unix.Syscall(unix.SYS_IOPRIO_SET, whoProcess, 0, uintptr(p)); e != 0 {
		return nil, fmt.Errorf("ioprio_set class %d level %d: %w", p>>13, p&0x1fff, e)
	}
	return func() { _, _, _ = unix.Syscall(unix.SYS_IOPRIO_SET, whoProcess, 0, old) }, nil
}

// isFull reports whether an I/O's result is ENOSPC or EDQUOT.
func isFull(res int64) bool {
	return res == -int64(unix.ENOSPC) || res == -int64(unix.EDQUOT)
}

// fillSize gives a fill_device job on a file, without a size, the free
// space of its file system (and what the file holds already) past its
// offset, in whole blocks of the largest size.
func (j Job) fillSize() (Job, error) {
	if j.Size != 0 || j.Filename == "" {
		return j, nil
	}
	st, err := os.Stat(j.Filename)
	switch {
	case err == nil && !st.Mode().IsRegular():
		return j, nil // a device: the region is the device
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return j, fmt.Errorf("workload: job %s: %w", j.Name, err)
	}
	var fs unix.Statfs_t
	if err := unix.Statfs(filepath.Dir(j.Filename), &fs); err != nil {
		return j, fmt.Errorf("workload: job %s: fill_device: %w", j.Name, err)
	}
	free := int64(fs.Bavail) * fs.Bsize
	if st != nil {
		free += st.Size()
	}
	bs := j.MaxBlockSize()
	size := (free - j.Offset) / bs * bs
	if size < bs {
		return j, fmt.Errorf("workload: job %s: fill_device: %s has no room for one block of %d bytes", j.Name, filepath.Dir(j.Filename), bs)
	}
	j.Size = size
	return j, nil
}

// setMicros parses a time whose bare numbers are microseconds.
func setMicros(f func(*Job) *time.Duration) func(*jobState, string) error {
	return func(st *jobState, v string) error {
		d, err := ParseTime(v, time.Microsecond)
		*f(&st.job) = d
		return err
	}
}

// think stalls a job for its thinktime: spinning for the spin part, then
// sleeping.
func think(total, spin time.Duration) {
	end := clock.Now() + int64(total)
	for spinEnd := clock.Now() + int64(spin); clock.Now() < spinEnd; {
	}
	if left := end - clock.Now(); left > 0 {
		time.Sleep(time.Duration(left))
	}
}

// exitGroups are the reporting groups of jobs, for exitall: a group
// starts at each job with new_group or stonewall.
func exitGroups(jobs []Job) []int {
	g := make([]int, len(jobs))
	for i := 1; i < len(jobs); i++ {
		g[i] = g[i-1]
		if jobs[i].NewGroup || jobs[i].Stonewall {
			g[i]++
		}
	}
	return g
}

// strided reports whether the job's I/O goes zone by zone (zonemode=strided).
func (j *Job) strided() bool { return j.ZoneMode == "strided" }

// zones walks a strided job's zones: the offset streams are moved to each
// zone in turn.
type zones struct {
	start, end int64 // the zones' extent: the job's offset to the end of the file
	rng, step  int64 // a zone's bytes; from one zone's start to the next's
	size       int64 // bytes moved in a zone before the next
	at, moved  int64 // the current zone's start; bytes moved in it
}

func newZones(j *Job, start, end int64) *zones {
	rng := j.ZoneRange
	if rng == 0 {
		rng = j.ZoneSize
	}
	rng = min(rng, end-start)
	return &zones{start: start, end: end, rng: rng, step: rng + j.ZoneSkip, size: j.ZoneSize, at: start}
}

// next accounts n bytes and reports whether the job moves to the next
// zone, which Rebase then applies.
func (z *zones) next(n int64) bool {
	z.moved += n
	if z.moved < z.size {
		return false
	}
	z.moved = 0
	z.at += z.step
	if z.at+z.rng > z.end {
		z.at = z.start
	}
	return true
}
