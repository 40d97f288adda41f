// Package owner names what a stortest process leaves on the machine (scratch
// files under loop devices, FUSE mount directories) after the process that
// made it, so that the next stortest process can tell an orphan (its maker
// is gone, say killed with SIGKILL before its cleanup ran) from something a
// live test still uses.
//
// A tag is "<pid>.<starttime>": the process id and the process's start time
// in clock ticks after boot (field 22 of /proc/<pid>/stat). The start time
// makes a tag name one process for the life of the system: a pid reused by
// a later process carries another start time, so it is not taken for the
// owner. Names carry the tag as "<prefix>-<tag>-<random>".
//
// Processes are looked up in this process's pid namespace: a process of
// another pid namespace (another container sharing the loop devices) is not
// seen, and its tag reads as dead here. Callers that act on a tag check,
// too, that the thing is visible in their own mount namespace.
package owner

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// statStartField is the 1-based field number of starttime in
// /proc/<pid>/stat (proc(5)).
const statStartField = 22

// ErrStat: a /proc/<pid>/stat text this package cannot read.
var ErrStat = errors.New("owner: malformed /proc/<pid>/stat")

var self = sync.OnceValue(func() string {
	tag, err := Of(os.Getpid())
	if err != nil {
		return ""
	}
	return tag
})

// Tag returns this process's tag, "<pid>.<starttime>", or "" when /proc
// cannot be read (no procfs): then nothing this process makes is tagged,
// and nothing it makes is ever taken for an orphan.
func Tag() string { return self() }

// Of returns the tag of the running process pid.
func Of(pid int) (string, error) {
	start, err := startOf(pid)
	if err != nil {
		return "", err
	}
	return format(pid, start), nil
}

func format(pid int, start uint64) string {
	return strconv.Itoa(pid) + "." + strconv.FormatUint(start, 10)
}

// startOf reads the start time of process pid.
func startOf(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, fmt.Errorf("owner: %w", err)
	}
	return StartTime(b)
}

// StartTime returns field 22, starttime (clock ticks after boot), of the
// text of a /proc/<pid>/stat file. The second field, the command name in
// parentheses, may itself hold spaces and parentheses: fields are counted
// from its last ')'.
func StartTime(stat []byte) (uint64, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("%w: no ')' after the command name", ErrStat)
	}
	fields := strings.Fields(string(stat[i+1:]))
	const k = statStartField - 3 // fields after ')' start at field 3, state
	if len(fields) <= k {
		return 0, fmt.Errorf("%w: %d fields, want at least %d", ErrStat, len(fields)+2, statStartField)
	}
	v, err := strconv.ParseUint(fields[k], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: starttime %q", ErrStat, fields[k])
	}
	return v, nil
}

// Parse finds the tag in a file or directory name built as
// "<prefix>-<tag>-<random>" (prefix and random non-empty; random holds no
// '-', as os.CreateTemp's and os.MkdirTemp's random parts do not, with
// whatever suffix the pattern gave it). A name without one, such as a file
// kept on purpose, is not ok.
func Parse(name string) (tag string, ok bool) {
	rest, random, found := cutLast(name, "-")
	if !found || random == "" {
		return "", false
	}
	prefix, tag, found := cutLast(rest, "-")
	if !found || prefix == "" {
		return "", false
	}
	if _, _, ok := Split(tag); !ok {
		return "", false
	}
	return tag, true
}

func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// maxPID is the largest pid Linux hands out (PID_MAX_LIMIT on 64-bit).
const maxPID = 1 << 22

// Split returns the pid and start time a tag names. Only the form Tag
// writes is ok: decimal numbers without signs or leading zeros, a pid
// from 1 to 2^22.
func Split(tag string) (pid int, start uint64, ok bool) {
	p, s, found := strings.Cut(tag, ".")
	if !found || !canonical(p) || !canonical(s) {
		return 0, 0, false
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid < 1 || pid > maxPID {
		return 0, 0, false
	}
	start, err = strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return pid, start, true
}

// canonical reports whether s is a decimal number as strconv prints it.
func canonical(s string) bool {
	if s == "" || len(s) > 1 && s[0] == '0' {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Alive reports whether the process a tag names still exists: its pid is
// in /proc with the tag's start time. A zombie not yet reaped counts as
// alive (its parent reaps it soon). A malformed tag names no process and is
// not alive. When /proc/<pid>/stat exists but cannot be read or parsed,
// Alive says true: what cannot be proved dead is left alone.
func Alive(tag string) bool {
	pid, start, ok := Split(tag)
	if !ok {
		return false
	}
	got, err := startOf(pid)
	if err != nil {
		return !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ESRCH)
	}
	return got == start
}
