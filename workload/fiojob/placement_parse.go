package fiojob

import (
	"fmt"
	"strconv"
	"strings"

	"stortest.dev/workload"
)

// Reading the Placement and Ordering options, and the options that
// change nothing stortest measures.

// noEffect accepts a boolean (isBool) or any value and changes nothing.
func noEffect(isBool bool) func(*jobState, string) error {
	return func(_ *jobState, v string) error {
		if isBool {
			_, err := ParseBool(v)
			return err
		}
		return nil
	}
}

// setClockSource accepts fio 3.33's clock sources. fio compares the text
// up to a ':' or ',' with each name, so "cpu:x" is cpu; anything else is
// refused, as fio refuses it ("failed parsing clocksource=...").
func setClockSource(_ *jobState, v string) error {
	name := v
	if i := strings.IndexAny(v, ":,"); i >= 0 {
		name = v[:i]
	}
	switch name {
	case "gettimeofday", "clock_gettime", "cpu":
		return nil
	}
	return fmt.Errorf("unknown clocksource %q (want gettimeofday, clock_gettime or cpu)", v)
}

// finishMore applies, when a job's section ends, what fio derives from
// Placement's options: a job with filesize but no size moves filesize
// (times nrfiles); a relative filename is in the directory; wait_for
// must name an earlier job.
func (p *parser) finishMore(st *jobState) error {
	j := &st.job
	if j.Size == 0 && j.FileSize > 0 && j.FileSizeMax == 0 {
		j.Size = j.FileSize * int64(j.NumFiles())
	}
	if j.Directory != "" && j.Filename != "" && !workload.IsNetEngine(j.Engine) {
		// The file is named in full: Directory stays only for fio's
		// default file name, so the job prints and reads back the same.
		// (A net job's filename is its peer, fio's hostname.)
		j.Filename, j.Directory = j.DirFile(j.Filename), ""
	}
	if j.WaitFor != "" {
		if !p.names[j.WaitFor] {
			return p.errorAt(st.at("wait_for"), "wait_for", valueErr("no job "+strconv.Quote(j.WaitFor)+" before this one"))
		}
	}
	return nil
}

// moreString prints Placement's and Ordering's options and the verify options beside them
// in job-file syntax, for Format.
func moreString(j *workload.Job) string {
	var b jobText
	b.unflag("do_verify", j.NoVerifyPhase)
	b.num("verify_backlog", j.VerifyBacklog, 0)
	b.flag("verify_only", j.VerifyOnly)
	b.str("directory", strings.ReplaceAll(j.Directory, ":", `\:`))
	b.str("filename_format", j.FilenameFormat)
	if j.SizePercent != 0 {
		b.kv("size", strconv.Itoa(j.SizePercent)+"%")
	}
	if j.OffsetPercent != 0 {
		b.kv("offset", strconv.Itoa(j.OffsetPercent)+"%")
	}
	b.size("offset_align", j.OffsetAlign)
	if j.FileSize != 0 {
		v := workload.FormatSize(j.FileSize)
		if j.FileSizeMax != 0 {
			v += "-" + workload.FormatSize(j.FileSizeMax)
		}
		b.kv("filesize", v)
	}
	b.size("io_size", j.IOSize)
	b.flag("stonewall", j.Stonewall)
	b.flag("new_group", j.NewGroup)
	b.str("wait_for", j.WaitFor)
	b.dur("startdelay", j.StartDelay)
	b.WriteString(flowString(&j.Flow))
	return b.String()
}
