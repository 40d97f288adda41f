package engines

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ExecSpec is the program the exec engine runs.
type ExecSpec struct {
	Path string   // the program
	Args []string // its arguments, without argv[0]
	// Stdout and Stderr are files the program's output goes to (created,
	// truncated); "" leaves it on this process's own.
	Stdout, Stderr string
	// Grace is the time between SIGTERM and SIGKILL when the job stops
	// the program.
	Grace time.Duration
}

// execPoll is the time one exec unit waits on the program, as fio's
// exec engine does (its units last about 50 ms).
const execPoll = 50 * time.Millisecond

// execEngine is fio's "exec": it starts a program with the job's first
// unit, each unit then waits execPoll (or less, if the program ends)
// and completes with Res 0, and Stop (or Close) ends the program:
// SIGTERM, then SIGKILL after the grace time. A program that cannot be
// started is, as in fio 3.33, a program that ended at once: the error
// goes to its stderr (the job's .stderr file when redirected, where
// fio's child writes it) and the units go on waiting for the runtime;
// StartErr tells why.
type execEngine struct {
	spec    ExecSpec
	proc    *os.Process
	started bool
	exited  bool
	status  unix.WaitStatus
	startE  error
	inline
}

var _ Engine = (*execEngine)(nil)

func newExec(cfg Config) (Engine, error) {
	if cfg.Exec == nil || cfg.Exec.Path == "" {
		return nil, fmt.Errorf("engines: %w: exec needs a program", ErrConfig)
	}
	return &execEngine{spec: *cfg.Exec}, nil
}

func (e *execEngine) Name() string { return "exec" }

func (e *execEngine) Flags() Flags { return FlagSync | FlagNoIO | FlagNoAlign }

// start runs the program, its output redirected.
func (e *execEngine) start() error {
	files := []*os.File{os.Stdin, os.Stdout, os.Stderr}
	for i, name := range []string{e.spec.Stdout, e.spec.Stderr} {
		if name == "" {
			continue
		}
		f, err := os.Create(name)
		if err != nil {
			return err
		}
		defer f.Close()
		files[1+i] = f
	}
	// Its own process group, so that the signals reach what it started
	// too and nothing is left running.
	p, err := os.StartProcess(e.spec.Path, append([]string{e.spec.Path}, e.spec.Args...),
		&os.ProcAttr{Files: files, Sys: &syscall.SysProcAttr{Setpgid: true}})
	if err != nil {
		fmt.Fprintf(files[2], "exec: start %s: %v\n", e.spec.Path, err)
		e.exited = true
		return err
	}
	e.proc = p
	return nil
}

// StartErr returns why the program could not be started, once the first
// unit has tried; nil if it started.
func (e *execEngine) StartErr() error { return e.startE }

func (e *execEngine) Queue(u *Unit) (Status, error) {
	if e.closed {
		return Busy, ErrClosed
	}
	if !e.started {
		e.started = true
		e.startE = e.start()
	}
	time.Sleep(execPoll)
	e.reap(false)
	u.Res = 0
	return Completed, nil
}

// reap collects the program's exit, waiting for it or not.
func (e *execEngine) reap(wait bool) {
	if e.proc == nil || e.exited {
		return
	}
	opts := unix.WNOHANG
	if wait {
		opts = 0
	}
	pid, err := unix.Wait4(e.proc.Pid, &e.status, opts, nil)
	if pid == e.proc.Pid || err == unix.ECHILD {
		e.exited = true
		_ = e.proc.Release()
	}
}

// Stop ends the program, if it still runs: SIGTERM, then SIGKILL once
// the grace time is over, to its process group (fio signals the program
// alone; a group leaves nothing it started running); it returns when
// the program is reaped.
func (e *execEngine) Stop() error {
	if e.proc == nil || e.exited {
		return nil
	}
	pgid := e.proc.Pid
	_ = unix.Kill(-pgid, unix.SIGTERM)
	deadline := time.Now().Add(e.spec.Grace)
	for {
		e.reap(false)
		if e.exited || !time.Now().Before(deadline) {
			break
		}
		time.Sleep(min(10*time.Millisecond, time.Until(deadline)))
	}
	if !e.exited {
		_ = unix.Kill(-pgid, unix.SIGKILL)
		e.reap(true)
	} else {
		_ = unix.Kill(-pgid, unix.SIGKILL) // what the program left in its group
	}
	return nil
}

func (e *execEngine) Explain(u *Unit) error {
	if u.Res >= 0 {
		return nil
	}
	return explain(u, explainCtx{engine: "exec"})
}

// Close stops the program if it still runs.
func (e *execEngine) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	return e.Stop()
}
