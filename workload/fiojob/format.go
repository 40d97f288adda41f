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
	var b strings.Builder
	kv := func(k, v string) { b.WriteString(k + "=" + v + "\n") }
	if n.Section != "" {
		b.WriteString("[" + n.Section + "]\n")
		kv("name", n.Name)
	} else {
		b.WriteString("[" + n.Name + "]\n")
	}
	str := func(k, v string) {
		if v != "" {
			kv(k, v)
		}
	}
	flag := func(k string, on bool) {
		if on {
			kv(k, "1")
		}
	}
	num := func(k string, v, def int64) {
		if v != def {
			kv(k, strconv.FormatInt(v, 10))
		}
	}
	dur := func(k string, d time.Duration) {
		if d != 0 {
			kv(k, workload.FormatTime(d))
		}
	}
	str("description", n.Description)
	str("filename", strings.ReplaceAll(n.Filename, ":", `\:`))
	flag("allow_mounted_write", n.AllowMountedWrite)
	kv("ioengine", n.Engine)
	kv("rw", rwString(&n))
	num("rwmixread", int64(n.RWMixRead), workload.DefaultRWMixRead)
	k, v := blockOption(n.BlocksOf())
	if w := n.WriteBlocks; w != nil {
		_, wv := blockOption(*w) // the same option: validate.Job checks it
		v += "," + wv
	}
	kv(k, v)
	num("iodepth", int64(n.IODepth), 1)
	num("iodepth_batch_submit", int64(n.IODepthBatch), 1)
	num("iodepth_batch_complete_min", int64(n.IODepthBatchCompleteMin), 1)
	num("iodepth_batch_complete_max", int64(n.IODepthBatchCompleteMax), 0)
	num("iodepth_low", int64(n.IODepthLow), 0)
	num("numjobs", int64(n.NumJobs), 1)
	if n.Size != 0 {
		kv("size", workload.FormatSize(n.Size))
	}
	if n.Offset != 0 {
		kv("offset", workload.FormatSize(n.Offset))
	}
	flag("direct", n.Direct)
	dur("runtime", n.Runtime)
	flag("time_based", n.TimeBased)
	dur("ramp_time", n.RampTime)
	num("loops", int64(n.Loops), 1)
	if n.RateIOPS != [3]int{} {
		kv("rate_iops", formatTriple([3]int64{int64(n.RateIOPS[0]), int64(n.RateIOPS[1]), int64(n.RateIOPS[2])}, strconv.FormatInt))
	}
	if n.Rate != [3]int64{} {
		kv("rate", formatTriple(n.Rate, func(v int64, _ int) string { return workload.FormatSize(v) }))
	}
	num("fsync", int64(n.FsyncEvery), 0)
	flag("norandommap", n.NoRandomMap)
	if !*n.RandRepeat {
		kv("randrepeat", "0")
	}
	if n.RandSeed != 0 {
		kv("randseed", strconv.FormatUint(n.RandSeed, 10))
	}
	if n.RandomDistribution != (workload.Distribution{}) {
		kv("random_distribution", n.RandomDistribution.String())
	}
	if n.Verify != workload.VerifyNone {
		kv("verify", n.Verify.String())
	}
	str("verify_pattern", n.VerifyPattern)
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
		kv("continue_on_error", n.ContinueOnError.String())
	}
	flag("hipri", n.Hipri)
	flag("fixedbufs", n.FixedBufs)
	flag("registerfiles", n.RegisterFiles)
	flag("sqthread_poll", n.SQThreadPoll)
	flag("nowait", n.NoWait)
	if !slices.Equal(n.PercentileList, workload.DefaultPercentiles) {
		parts := make([]string, len(n.PercentileList))
		for i, p := range n.PercentileList {
			parts[i] = strconv.FormatFloat(p, 'g', -1, 64)
		}
		kv("percentile_list", strings.Join(parts, ":"))
	}
	flag("lat_percentiles", n.LatPercentiles)
	flag("slat_percentiles", n.SlatPercentiles)
	str("write_hist_log", n.WriteHistLog)
	num("log_hist_msec", int64(n.LogHistMsec), 0)
	if n.SS != "" && !(n.SS == workload.DefaultSS && n.SSDur > 0) {
		kv("steadystate", n.SS)
	}
	dur("ss_dur", n.SSDur)
	dur("ss_ramp", n.SSRamp)
	b.WriteString(reportingString(&n))
	return b.String()
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
