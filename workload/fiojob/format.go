package fiojob

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"stortest.dev/workload"
)

// Format prints the job as a fio job-file section that Parse reads back
// to j.Normalized(). Options at their default are left out, except
// ioengine, rw and the block size.
func Format(j workload.Job) string {
	n := j.Normalized()
	var b jobText
	if n.Section != "" {
		b.WriteString("[" + n.Section + "]\n")
		b.kv("name", n.Name)
	} else {
		b.WriteString("[" + n.Name + "]\n")
	}
	b.str("description", n.Description)
	b.str("filename", strings.ReplaceAll(n.Filename, ":", `\:`))
	b.flag("allow_mounted_write", n.AllowMountedWrite)
	b.kv("ioengine", n.Engine)
	b.kv("rw", rwString(&n))
	b.num("rwmixread", int64(n.RWMixRead), workload.DefaultRWMixRead)
	k, v := blockOption(n.BlocksOf())
	if w := n.WriteBlocks; w != nil {
		_, wv := blockOption(*w) // the same option: validate.Job checks it
		v += "," + wv
	}
	b.kv(k, v)
	b.num("iodepth", int64(n.IODepth), 1)
	b.num("iodepth_batch_submit", int64(n.IODepthBatch), 1)
	b.num("iodepth_batch_complete_min", int64(n.IODepthBatchCompleteMin), 1)
	b.num("iodepth_batch_complete_max", int64(n.IODepthBatchCompleteMax), 0)
	b.num("iodepth_low", int64(n.IODepthLow), 0)
	b.num("numjobs", int64(n.NumJobs), 1)
	b.size("size", n.Size)
	b.size("offset", n.Offset)
	b.flag("direct", n.Direct)
	b.dur("runtime", n.Runtime)
	b.flag("time_based", n.TimeBased)
	b.dur("ramp_time", n.RampTime)
	b.num("loops", int64(n.Loops), 1)
	if n.RateIOPS != [3]int{} {
		b.kv("rate_iops", formatTriple([3]int64{int64(n.RateIOPS[0]), int64(n.RateIOPS[1]), int64(n.RateIOPS[2])}, strconv.FormatInt))
	}
	if n.Rate != [3]int64{} {
		b.kv("rate", formatTriple(n.Rate, func(v int64, _ int) string { return workload.FormatSize(v) }))
	}
	b.num("fsync", int64(n.FsyncEvery), 0)
	b.flag("norandommap", n.NoRandomMap)
	b.unflag("randrepeat", !*n.RandRepeat)
	if n.RandSeed != 0 {
		b.kv("randseed", strconv.FormatUint(n.RandSeed, 10))
	}
	if n.RandomDistribution != (workload.Distribution{}) {
		b.kv("random_distribution", n.RandomDistribution.String())
	}
	if n.Verify != workload.VerifyNone {
		b.kv("verify", n.Verify.String())
	}
	b.str("verify_pattern", n.VerifyPattern)
	b.WriteString(moreString(&n))
	b.WriteString(extraString(&n))
	b.WriteString(cpusString(&n))
	b.WriteString(enginesString(&n))
	b.WriteString(multiFileString(&n))
	b.WriteString(netString(&n))
	b.WriteString(submitString(&n))
	b.WriteString(filesString(&n))
	b.WriteString(iologString(&n))
	b.WriteString(latencyString(&n))
	b.WriteString(buffersString(&n))
	if n.ContinueOnError != workload.ContinueNone {
		b.kv("continue_on_error", n.ContinueOnError.String())
	}
	b.flag("hipri", n.Hipri)
	b.flag("fixedbufs", n.FixedBufs)
	b.unflag("fixedbufs", n.NoFixedBufs && !n.FixedBufs)
	b.flag("registerfiles", n.RegisterFiles)
	b.flag("sqthread_poll", n.SQThreadPoll)
	b.flag("nowait", n.NoWait)
	if !slices.Equal(n.PercentileList, workload.DefaultPercentiles) {
		parts := make([]string, len(n.PercentileList))
		for i, p := range n.PercentileList {
			parts[i] = strconv.FormatFloat(p, 'g', -1, 64)
		}
		b.kv("percentile_list", strings.Join(parts, ":"))
	}
	b.flag("lat_percentiles", n.LatPercentiles)
	b.flag("slat_percentiles", n.SlatPercentiles)
	b.str("write_hist_log", n.WriteHistLog)
	b.num("log_hist_msec", int64(n.LogHistMsec), 0)
	if n.SS != "" && !(n.SS == workload.DefaultSS && n.SSDur > 0) {
		b.kv("steadystate", n.SS)
	}
	b.dur("ss_dur", n.SSDur)
	b.dur("ss_ramp", n.SSRamp)
	b.WriteString(reportingString(&n))
	return b.String()
}

// jobText is job-file text being written: one "option=value" line an
// option. Format and the printers of each concept's options write
// through it; the helpers but kv leave an option at its default out.
type jobText struct{ strings.Builder }

// kv writes the line k=v.
func (b *jobText) kv(k, v string) { b.WriteString(k + "=" + v + "\n") }

// str writes k=v unless v is empty.
func (b *jobText) str(k, v string) {
	if v != "" {
		b.kv(k, v)
	}
}

// flag writes k=1 when on: an option fio defaults to 0.
func (b *jobText) flag(k string, on bool) {
	if on {
		b.kv(k, "1")
	}
}

// unflag writes k=0 when off: an option fio defaults to 1, which a
// Job holds as a No... field.
func (b *jobText) unflag(k string, off bool) {
	if off {
		b.kv(k, "0")
	}
}

// num writes k=v in decimal unless v is def.
func (b *jobText) num(k string, v, def int64) {
	if v != def {
		b.kv(k, strconv.FormatInt(v, 10))
	}
}

// dur writes k=d in fio's time syntax unless d is 0.
func (b *jobText) dur(k string, d time.Duration) {
	if d != 0 {
		b.kv(k, workload.FormatTime(d))
	}
}

// ms writes k=d in whole milliseconds unless d is 0.
func (b *jobText) ms(k string, d time.Duration) {
	if d != 0 {
		b.kv(k, strconv.FormatInt(d.Milliseconds(), 10))
	}
}

// size writes k=v in fio's size syntax unless v is 0.
func (b *jobText) size(k string, v int64) {
	if v != 0 {
		b.kv(k, workload.FormatSize(v))
	}
}

// formatTriple prints a per-direction (read, write, trim) value in fio's
// shortest syntax: "v" when all three are equal, "r,w" when trim equals
// write, else "r,w,t"; zeros print empty ("100," limits reads only).
func formatTriple(v [3]int64, f func(int64, int) string) string {
	s := func(x int64) string {
		if x == 0 {
			return ""
		}
		return f(x, 10)
	}
	switch {
	case v[0] == v[1] && v[1] == v[2]:
		return s(v[0])
	case v[1] == v[2] && v[2] != 0:
		return s(v[0]) + "," + s(v[1])
	}
	return s(v[0]) + "," + s(v[1]) + "," + s(v[2])
}
