package validate

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"stortest.dev/fio"
	"stortest.dev/steady"
	"stortest.dev/workload"
)

// maxNameLen is the longest job name, in bytes.
const maxNameLen = 255

// Job checks the normalized job and returns a *workload.FieldError naming the
// first bad field (by its fio option name) and why. It runs once per job,
// not per I/O.
func Job(j *workload.Job) error {
	n := j.Normalized()
	bad := func(field, format string, args ...any) error {
		return &workload.FieldError{Job: j.Name, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	if err := checkName(n.Name); err != "" {
		return bad("name", "%s", err)
	}
	if n.Section != "" {
		if err := checkName(n.Section); err != "" {
			return bad("section", "%s", err)
		}
	}
	for _, f := range [...]struct{ name, value string }{
		{"description", n.Description}, {"filename", n.Filename}, {"verify_pattern", n.VerifyPattern},
		{"write_hist_log", n.WriteHistLog}, {"steadystate", n.SS},
	} {
		if err := checkValue(f.value); err != "" {
			return bad(f.name, "%s", err)
		}
	}
	if !slices.Contains(workload.Engines, n.Engine) {
		return bad("ioengine", "unknown engine %q (want one of %s)", n.Engine, strings.Join(workload.Engines, ", "))
	}
	if n.RW >= workload.NumRW {
		return bad("rw", "invalid RW %d", n.RW)
	}
	if n.RWMixRead < 0 || n.RWMixRead > 100 {
		return bad("rwmixread", "%d is not a percentage", n.RWMixRead)
	}
	if err := validateBlockSizes(&n); err != nil {
		return &workload.FieldError{Job: j.Name, Field: err.field, Reason: err.reason}
	}
	if w := n.WriteBlocks; w != nil {
		wj := n.WithBlocks(*w)
		if err := validateBlockSizes(&wj); err != nil {
			return &workload.FieldError{Job: j.Name, Field: err.field, Reason: "write: " + err.reason}
		}
		rk := n.BlocksOf().Option()
		wk := w.Option()
		switch {
		case !n.RW.Mixed():
			return bad(rk, "write block sizes of their own are for jobs that read and write (rw, randrw), not rw=%s", n.RW)
		case wk != rk:
			return bad(rk, "the writes' block sizes are a %s, the reads' a %s: give both in one option", wk, rk)
		}
	}
	switch {
	case n.IODepth < 1 || n.IODepth > workload.MaxIODepth:
		return bad("iodepth", "%d is outside [1, %d]", n.IODepth, workload.MaxIODepth)
	case n.IODepthBatch < 1 || n.IODepthBatch > n.IODepth:
		return bad("iodepth_batch_submit", "%d is outside [1, iodepth=%d]", n.IODepthBatch, n.IODepth)
	case n.IODepthBatchCompleteMin < 1 || n.IODepthBatchCompleteMin > n.IODepth:
		return bad("iodepth_batch_complete_min", "%d is outside [1, iodepth=%d]", n.IODepthBatchCompleteMin, n.IODepth)
	case n.IODepthBatchCompleteMax != 0 && (n.IODepthBatchCompleteMax < n.IODepthBatchCompleteMin || n.IODepthBatchCompleteMax > n.IODepth):
		return bad("iodepth_batch_complete_max", "%d is outside [iodepth_batch_complete_min=%d, iodepth=%d]",
			n.IODepthBatchCompleteMax, n.IODepthBatchCompleteMin, n.IODepth)
	case n.IODepthLow < 0 || n.IODepthLow > n.IODepth:
		return bad("iodepth_low", "%d is outside [1, iodepth=%d]", n.IODepthLow, n.IODepth)
	case n.NumJobs < 1 || n.NumJobs > workload.MaxNumJobs:
		return bad("numjobs", "%d is outside [1, %d]", n.NumJobs, workload.MaxNumJobs)
	case n.Size < 0:
		return bad("size", "negative (%d)", n.Size)
	case n.Offset < 0:
		return bad("offset", "negative (%d)", n.Offset)
	case n.Size > 0 && n.Size < n.MinBlockSize():
		return bad("size", "%s is smaller than the block size %s", workload.FormatSize(n.Size), workload.FormatSize(n.MinBlockSize()))
	case n.Size > math.MaxInt64-n.Offset:
		return bad("size", "offset+size overflows")
	case n.Loops < 1:
		return bad("loops", "%d is less than 1", n.Loops)
	case n.FsyncEvery < 0:
		return bad("fsync", "negative (%d)", n.FsyncEvery)
	case n.LogHistMsec < 0:
		return bad("log_hist_msec", "negative (%d)", n.LogHistMsec)
	}
	for _, d := range [...]struct {
		name string
		d    time.Duration
	}{{"runtime", n.Runtime}, {"ramp_time", n.RampTime}, {"ss_dur", n.SSDur}, {"ss_ramp", n.SSRamp}} {
		if d.d < 0 {
			return bad(d.name, "negative (%v)", d.d)
		}
		if d.d%time.Microsecond != 0 {
			return bad(d.name, "%v is not a whole number of microseconds (fio's resolution)", d.d)
		}
	}
	if n.TimeBased && n.Runtime == 0 {
		return bad("time_based", "needs a runtime")
	}
	var anyRate, anyIOPS bool
	for i := range 3 {
		if n.Rate[i] < 0 {
			return bad("rate", "negative (%d)", n.Rate[i])
		}
		if n.RateIOPS[i] < 0 {
			return bad("rate_iops", "negative (%d)", n.RateIOPS[i])
		}
		anyRate = anyRate || n.Rate[i] > 0
		anyIOPS = anyIOPS || n.RateIOPS[i] > 0
	}
	if anyRate && anyIOPS {
		return bad("rate_iops", "rate and rate_iops are mutually exclusive (as in fio)")
	}
	// The checks of each concept's options, in this order: those that
	// return the option and the reason, and those that return the error.
	reasoned := func(check func(*workload.Job) (opt, reason string)) func(*workload.Job) error {
		return func(j *workload.Job) error {
			if opt, reason := check(j); opt != "" {
				return bad(opt, "%s", reason)
			}
			return nil
		}
	}
	for _, check := range [...]func(*workload.Job) error{
		reasoned(validateMore), validateFileNames, reasoned(validateCPUs), reasoned(validateExtra),
		validateEngines, validateMultiFile, validateNet, reasoned(validateSubmit), reasoned(validateFiles),
		reasoned(validateIOLog), reasoned(validateLatency), reasoned(validateBuffers),
	} {
		if err := check(&n); err != nil {
			return err
		}
	}
	if err := n.RandomDistribution.Validate(); err != "" {
		return bad("random_distribution", "%s", err)
	}
	if n.Verify >= workload.NumVerifyKinds {
		return bad("verify", "invalid VerifyKind %d", n.Verify)
	}
	if n.Verify != workload.VerifyNone && n.MinBlockSize() < workload.VerifyHeaderSize {
		return bad("verify", "blocks of %d bytes cannot hold the %d-byte verify header", n.MinBlockSize(), workload.VerifyHeaderSize)
	}
	if n.Verify == workload.VerifyPatternKind && n.VerifyPattern == "" {
		return bad("verify", "verify=pattern needs verify_pattern")
	}
	if _, err := fio.ParseVerifyPattern(n.VerifyPattern); err != nil {
		return bad("verify_pattern", "%v", err)
	}
	if !n.ContinueOnError.Valid() {
		return bad("continue_on_error", "invalid ContinueOn %d", n.ContinueOnError)
	}
	if n.FixedBufs && n.NoFixedBufs {
		return bad("fixedbufs", "FixedBufs and NoFixedBufs are both set")
	}
	for _, o := range [...]struct {
		name string
		on   bool
	}{{"hipri", n.Hipri}, {"fixedbufs", n.FixedBufs}, {"registerfiles", n.RegisterFiles},
		{"sqthread_poll", n.SQThreadPoll}, {"nowait", n.NoWait}} {
		if o.on && !slices.Contains(workload.EngineOptions[o.name], n.Engine) {
			return bad(o.name, "ioengine=%s does not take it (only %s)", n.Engine, strings.Join(workload.EngineOptions[o.name], ", "))
		}
	}
	if len(n.PercentileList) == 0 || len(n.PercentileList) > workload.MaxPercentiles {
		return bad("percentile_list", "%d entries (want 1 to %d)", len(n.PercentileList), workload.MaxPercentiles)
	}
	for i, p := range n.PercentileList {
		if !(p > 0 && p <= 100) {
			return bad("percentile_list", "%v is outside (0, 100]", p)
		}
		if i > 0 && p <= n.PercentileList[i-1] {
			return bad("percentile_list", "not strictly ascending at %v", p)
		}
	}
	if opt, reason := validateReporting(&n); opt != "" {
		return bad(opt, "%s", reason)
	}
	if n.SS != "" {
		crit, limit, ok := strings.Cut(n.SS, ":")
		if !ok || crit == "" || limit == "" || strings.ContainsFunc(n.SS, unicode.IsSpace) {
			return bad("steadystate", "%q is not <criterion>:<limit> (e.g. iops_slope:0.1%%)", n.SS)
		}
		// The criteria themselves, so that a job file's bad one is
		// refused with its line (and by --parse-only), not at the run.
		if _, err := steady.ParseSet(n.SS); err != nil {
			return &workload.FieldError{Job: j.Name, Field: "steadystate", Reason: err.Error(), Err: err}
		}
	}
	return nil
}

type fieldErr struct{ field, reason string }

func validateBlockSizes(j *workload.Job) *fieldErr {
	set := 0
	if j.BlockSize != 0 {
		set++
	}
	if !j.BlockSizeRange.IsZero() {
		set++
	}
	if len(j.BlockSizeSplit) > 0 {
		set++
	}
	if set > 1 {
		return &fieldErr{"bs", "set only one of bs, bsrange and bssplit"}
	}
	okSize := func(n int64) bool { return n > 0 && n <= workload.MaxBlockSize }
	switch {
	case len(j.BlockSizeSplit) > 0:
		if len(j.BlockSizeSplit) > workload.MaxSplits {
			return &fieldErr{"bssplit", fmt.Sprintf("%d entries (at most %d)", len(j.BlockSizeSplit), workload.MaxSplits)}
		}
		sum := 0
		for _, s := range j.BlockSizeSplit {
			if !okSize(s.Size) {
				return &fieldErr{"bssplit", fmt.Sprintf("block size %d is outside [1, %s]", s.Size, workload.FormatSize(workload.MaxBlockSize))}
			}
			if s.Percent < 0 || s.Percent > 100 {
				return &fieldErr{"bssplit", fmt.Sprintf("%d is not a percentage", s.Percent)}
			}
			sum += s.Percent
		}
		if sum != 100 {
			return &fieldErr{"bssplit", fmt.Sprintf("percentages add up to %d, not 100", sum)}
		}
	case !j.BlockSizeRange.IsZero():
		r := j.BlockSizeRange
		if !okSize(r.Min) || !okSize(r.Max) || r.Min > r.Max {
			return &fieldErr{"bsrange", fmt.Sprintf("%d-%d is not a range within [1, %s]", r.Min, r.Max, workload.FormatSize(workload.MaxBlockSize))}
		}
	default:
		if !okSize(j.BlockSize) {
			return &fieldErr{"bs", fmt.Sprintf("%d is outside [1, %s]", j.BlockSize, workload.FormatSize(workload.MaxBlockSize))}
		}
	}
	return nil
}

// checkName reports why a job name cannot be printed as a job-file
// section, or "".
func checkName(s string) string {
	switch {
	case s == "":
		return "empty"
	case len(s) > maxNameLen:
		return fmt.Sprintf("longer than %d bytes", maxNameLen)
	case strings.HasPrefix(s, "global"):
		return "fio reads a section named global... as the global section"
	}
	return checkChars(s)
}

// checkValue reports why a string option cannot be printed as key=value
// and read back unchanged, or "".
func checkValue(s string) string {
	if s == "" {
		return ""
	}
	if strings.TrimSpace(s) != s {
		return "leading or trailing white space"
	}
	return checkChars(s)
}

func checkChars(s string) string {
	if !utf8.ValidString(s) {
		return "not valid UTF-8"
	}
	for _, r := range s {
		switch {
		case unicode.IsControl(r):
			return "contains a control character"
		case r == ';' || r == '#':
			return fmt.Sprintf("contains %q, which starts a comment in a fio job file", r)
		case r == '$':
			return "contains '$', which fio expands"
		}
	}
	return ""
}
