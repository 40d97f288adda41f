package fiojob

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"

	"stortest.dev/workload"
)

// Reading the options of OffsetPattern, Measurement, RateFloor, Priority,
// Think, Ending and Zones, and the block sizes per direction.

// parseRWModifier parses fio's rw value with its optional ":N" offset
// modifier: a size, negative for backwards, for sequential patterns; a
// count of I/Os for random ones.
func parseRWModifier(v string) (workload.RW, int64, error) {
	name, mod, ok := strings.Cut(v, ":")
	rw, err := workload.ParseRW(name)
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

// directionsOf returns the value of a size option that fio 3.33 reads per
// direction (bs) in the comma form: without a comma, fio splits the
// value at ':', else at '-', as it splits at commas, so bs=4k-512k is
// bs=4k,512k (reads 4k, writes and trims 512k), not a range.
func directionsOf(v string) string {
	if strings.Contains(v, ",") {
		return v
	}
	if strings.Contains(v, ":") {
		return strings.ReplaceAll(v, ":", ",")
	}
	return strings.ReplaceAll(v, "-", ",")
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
	of := func(i int) workload.BlockSpec {
		sc := &jobState{}
		_ = d.set(sc, d.parts[i]) // checked when the option was read
		return sc.job.BlocksOf()
	}
	switch {
	case j.RW.Trims():
		*j = j.WithBlocks(of(2))
	case j.RW.Mixed():
		if w, r := of(1), j.BlocksOf(); !w.SameAs(&r) {
			j.WriteBlocks = &w
		}
	case j.RW.Writes():
		*j = j.WithBlocks(of(1))
	}
	return nil
}

// setMicros parses a time whose bare numbers are microseconds.
func setMicros(f func(*workload.Job) *time.Duration) func(*jobState, string) error {
	return func(st *jobState, v string) error {
		d, err := ParseTime(v, time.Microsecond)
		*f(&st.job) = d
		return err
	}
}

// option returns the fio option and value that give b.
func blockOption(b workload.BlockSpec) (string, string) {
	switch {
	case len(b.BlockSizeSplit) > 0:
		return "bssplit", asSplit(b)
	case !b.BlockSizeRange.IsZero():
		return "bsrange", b.BlockSizeRange.String()
	}
	return "bs", workload.FormatSize(cmp.Or(b.BlockSize, workload.DefaultBlockSize))
}

// asSplit prints b's split in bssplit's syntax.
func asSplit(b workload.BlockSpec) string {
	parts := make([]string, len(b.BlockSizeSplit))
	for i, s := range b.BlockSizeSplit {
		parts[i] = workload.FormatSize(s.Size) + "/" + strconv.Itoa(s.Percent)
	}
	return strings.Join(parts, ":")
}

// extraString prints those options but rw's modifier (see rwString).
func extraString(j *workload.Job) string {
	var b jobText
	if j.RWSequencer != "" && j.RWSequencer != "sequential" {
		b.kv("rw_sequencer", j.RWSequencer)
	}
	b.size("blockalign", j.BlockAlign)
	b.flag("fill_device", j.FillDevice)
	b.dur("thinktime", j.ThinkTime)
	b.dur("thinktime_spin", j.ThinkTimeSpin)
	if j.ThinkTimeBlocks > 1 {
		b.kv("thinktime_blocks", strconv.Itoa(j.ThinkTimeBlocks))
	}
	b.num("number_ios", j.NumberIOs, 0)
	b.flag("exitall", j.ExitAll)
	if j.ExitWhat != "" && j.ExitWhat != "group" {
		b.kv("exit_what", j.ExitWhat)
	}
	if j.Strided() {
		b.kv("zonemode", "strided")
		b.kv("zonesize", workload.FormatSize(j.ZoneSize))
		b.size("zonerange", j.ZoneRange)
		b.size("zoneskip", j.ZoneSkip)
	}
	if j.PrioClass != 0 {
		b.kv("prioclass", strconv.Itoa(j.PrioClass))
		b.kv("prio", strconv.Itoa(j.PrioLevel))
	}
	if j.RateMin != [3]int64{} {
		b.kv("rate_min", formatTriple(j.RateMin, func(v int64, _ int) string { return workload.FormatSize(v) }))
	}
	if j.RateIOPSMin != [3]int64{} {
		b.kv("rate_iops_min", formatTriple(j.RateIOPSMin, strconv.FormatInt))
	}
	b.ms("rate_cycle", j.RateCycle)
	b.ms("bwavgtime", j.BWAvgTime)
	b.ms("iopsavgtime", j.IOPSAvgTime)
	b.flag("disable_lat", j.DisableLat)
	b.flag("disable_clat", j.DisableClat)
	b.flag("disable_slat", j.DisableSlat)
	b.flag("disable_bw_measurement", j.DisableBW)
	return b.String()
}

// rwString prints rw with its modifier, as fio writes it.
func rwString(j *workload.Job) string {
	if j.RWModifier == 0 {
		return j.RW.String()
	}
	if j.RWModifier < 0 {
		return j.RW.String() + ":-" + workload.FormatSize(-j.RWModifier)
	}
	if j.RW.Random() {
		return j.RW.String() + ":" + strconv.FormatInt(j.RWModifier, 10)
	}
	return j.RW.String() + ":" + workload.FormatSize(j.RWModifier)
}
