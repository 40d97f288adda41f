package workload

import (
	"stortest.dev/fio"
)

// IOLogs are fio's options that record a job's I/O to a log and replay
// a log (package fio reads and writes the format); Job embeds it, so the fields read
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

// IOLogAct is one action of an I/O log line (fio.IOLogAct).
type IOLogAct = fio.IOLogAct

// The actions, as fio's I/O log names them.
const (
	LogAdd       = fio.LogAdd
	LogOpen      = fio.LogOpen
	LogClose     = fio.LogClose
	LogRead      = fio.LogRead
	LogWrite     = fio.LogWrite
	LogTrim      = fio.LogTrim
	LogSync      = fio.LogSync
	LogDatasync  = fio.LogDatasync
	LogWait      = fio.LogWait
	NumIOLogActs = fio.NumIOLogActs
)

// IOLogActs are the actions' names in the log.
var IOLogActs = fio.IOLogActs
