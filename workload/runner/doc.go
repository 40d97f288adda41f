// Package runner runs workload.Jobs: Run and RunJobs start each clone on
// its own goroutine locked to an OS thread with its own engine, file and
// buffers; the loop fills the queue, submits, reaps and records
// latencies (runner.go), with submission offloaded to other threads
// (offload.go), syncs (filesync_run.go), flows (flow_run.go), fio's logs
// and histogram logs (fiolog.go, histlog.go), I/O logs to write and
// replay (iolog_run.go; package fio reads and writes the format),
// steady-state stops, the latency
// target's depth search, and a device that stops answering (stall.go).
// NewScratch makes throw-away targets (package target's CleanOrphans
// removes what dead processes left of them).
package runner
