package workload

import (
	"fmt"
	"strconv"
	"strings"
)

// IOLogs are fio's options that record a job's I/O to a log and replay
// a log (iologfmt.go has the format); Job embeds it, so the fields read
// as Job's.
type IOLogs struct {
	// WriteIOLog is fio's write_iolog: every I/O the job issues, in
	// order, is appended to this file in fio's version 3 iolog format
	// (what fio 3.33 writes), with its time in µs since the job started.
	// With ReadIOLog it is ignored, as fio ignores it.
	WriteIOLog string `json:"write_iolog,omitempty"`
	// ReadIOLog is fio's read_iolog: the job replays this version 2 or 3
	// iolog, its offsets, lengths, directions and syncs in order, onto the
	// file the log names (one file), or onto ReplayRedirect. The job's
	// rw, bs and size come from the log; a size is laid out to the log's
	// highest offset when the file does not exist.
	ReadIOLog string `json:"read_iolog,omitempty"`
	// ReplayNoStall (replay_no_stall) issues the log's I/O as fast as the
	// depth allows, ignoring its timestamps (version 3) and waits
	// (version 2).
	ReplayNoStall bool `json:"replay_no_stall,omitempty"`
	// ReplayRedirect (replay_redirect) replays every I/O of the log onto
	// this file or device.
	ReplayRedirect string `json:"replay_redirect,omitempty"`
	// ReplayScale (replay_scale) divides the log's offsets; ReplayAlign
	// (replay_align, a power of 2) then rounds them down to a multiple.
	ReplayScale int64 `json:"replay_scale,omitempty"`
	ReplayAlign int64 `json:"replay_align,omitempty"`
	// ReplayTimeScale (replay_time_scale) is the pace in percent of the
	// log's: 200 replays twice as fast; 0 means 100.
	ReplayTimeScale int `json:"replay_time_scale,omitempty"`
	// ReplaySkip (replay_skip) leaves out the log's actions of these
	// kinds: bits 1<<LogRead, 1<<LogWrite, 1<<LogTrim, 1<<LogSync.
	ReplaySkip uint16 `json:"replay_skip,omitempty"`
}

// replaySkipNames are replay_skip's words and the actions they skip.
var ReplaySkipNames = []struct {
	Name string
	Bits uint16
}{
	{"read", 1 << LogRead}, {"write", 1 << LogWrite}, {"trim", 1 << LogTrim},
	{"sync", 1<<LogSync | 1<<LogDatasync},
}

// validateIOLog checks IOLogs's fields of the normalized job: the
// option and why, or "".
func (j *Job) validateIOLog() (string, string) {
	switch {
	case j.ReplayAlign < 0 || j.ReplayAlign&(j.ReplayAlign-1) != 0:
		return "replay_align", fmt.Sprintf("%d is not a power of 2", j.ReplayAlign)
	case j.ReplayScale < 0:
		return "replay_scale", "negative"
	case j.ReplayTimeScale < 0:
		return "replay_time_scale", "negative"
	case j.Offload && (j.ReadIOLog != "" || j.WriteIOLog != ""):
		return "io_submit_mode", "offload with read_iolog or write_iolog is not supported by stortest"
	case j.ReadIOLog != "" && j.Verify != VerifyNone:
		return "verify", "with read_iolog is not supported by stortest"
	}
	return "", ""
}

// iologString prints IOLogs's options in job-file syntax, for
// Job.String.
func (j *Job) iologString() string {
	var b strings.Builder
	str := func(k, v string) {
		if v != "" {
			b.WriteString(k + "=" + v + "\n")
		}
	}
	num := func(k string, v int64) {
		if v != 0 {
			b.WriteString(k + "=" + strconv.FormatInt(v, 10) + "\n")
		}
	}
	str("write_iolog", j.WriteIOLog)
	str("read_iolog", strings.ReplaceAll(j.ReadIOLog, ":", `\:`))
	if j.ReplayNoStall {
		b.WriteString("replay_no_stall=1\n")
	}
	str("replay_redirect", j.ReplayRedirect)
	num("replay_scale", j.ReplayScale)
	num("replay_align", j.ReplayAlign)
	num("replay_time_scale", int64(j.ReplayTimeScale))
	if j.ReplaySkip != 0 {
		var w []string
		for _, s := range ReplaySkipNames {
			if j.ReplaySkip&s.Bits != 0 {
				w = append(w, s.Name)
			}
		}
		str("replay_skip", strings.Join(w, ","))
	}
	return b.String()
}
