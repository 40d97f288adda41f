// Package owner names what a stortest process leaves on the machine (scratch
// files under loop devices, FUSE mount directories) after the process that
// made it, so that the next stortest process can tell an orphan (its maker
// is gone, say killed with SIGKILL before its cleanup ran) from something a
// live test still uses.
//
// A tag is "<pid>.<starttime>.<pidns>": the process id, the process's start
// time in clock ticks after boot (field 22 of /proc/<pid>/stat) and the
// inode number of its pid namespace (/proc/self/ns/pid). The start time
// makes a tag name one process for the life of the system: a pid reused by
// a later process carries another start time, so it is not taken for the
// owner. Names carry the tag as "<prefix>-<tag>-<random>".
//
// Processes can be looked up only in this process's pid namespace. A tag
// of another pid namespace (another container sharing /tmp or the loop
// devices) names a process this one cannot see, so it is never taken for
// dead. Tags of older versions, "<pid>.<starttime>", carry no namespace and
// are looked up here as before. Callers that act on a tag check, too, that
// the thing is visible in their own mount namespace.
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

	"stortest.dev/internal/kernelfs"
)

// ScratchPrefix begins every scratch file's name. A file made to be
// removed by its process is named ScratchPrefix+"<tag>-<random>.img",
// with the process's owner tag (see target.CleanOrphans); a kept one,
// ScratchPrefix+"<random>.img".
const ScratchPrefix = "stortest-scratch-"

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

// pidNS is the inode number of this process's pid namespace, 0 when
// /proc/self/ns/pid cannot be read.
var pidNS = sync.OnceValue(func() uint64 {
	var st syscall.Stat_t
	if err := syscall.Stat(kernelfs.Default().ProcPath("self", "ns", "pid"), &st); err != nil {
		return 0
	}
	return st.Ino
})

// Tag returns this process's tag, "<pid>.<starttime>", or "" when /proc
// cannot be read (no procfs): then nothing this process makes is tagged,
// and nothing it makes is ever taken for an orphan.
func Tag() string { return self() }

// Of returns the tag of the running process pid of this pid namespace.
func Of(pid int) (string, error) {
	start, err := startOf(pid)
	if err != nil {
		return "", err
	}
	return format(pid, start, pidNS()), nil
}

func format(pid int, start, ns uint64) string {
	t := strconv.Itoa(pid) + "." + strconv.FormatUint(start, 10)
	if ns != 0 {
		t += "." + strconv.FormatUint(ns, 10)
	}
	return t
}

// startOf reads the start time of process pid.
func startOf(pid int) (uint64, error) {
	b, err := os.ReadFile(kernelfs.Default().ProcPath(strconv.Itoa(pid), "stat"))
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

// Split returns the pid and start time a tag names. Only the forms Tag
// writes are ok: decimal numbers without signs or leading zeros, a pid
// from 1 to 2^22, and a non-zero pid namespace when there is one.
func Split(tag string) (pid int, start uint64, ok bool) {
	pid, start, _, ok = split(tag)
	return pid, start, ok
}

// split is Split with the tag's pid namespace, 0 for a tag without one.
func split(tag string) (pid int, start, ns uint64, ok bool) {
	parts := strings.Split(tag, ".")
	if len(parts) != 2 && len(parts) != 3 {
		return 0, 0, 0, false
	}
	for _, p := range parts {
		if !canonical(p) {
			return 0, 0, 0, false
		}
	}
	pid, err := strconv.Atoi(parts[0])
	if err != nil || pid < 1 || pid > maxPID {
		return 0, 0, 0, false
	}
	if start, err = strconv.ParseUint(parts[1], 10, 64); err != nil {
		return 0, 0, 0, false
	}
	if len(parts) == 3 {
		if ns, err = strconv.ParseUint(parts[2], 10, 64); err != nil || ns == 0 {
			return 0, 0, 0, false
		}
	}
	return pid, start, ns, true
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
// not alive. A tag of another pid namespace than this process's is alive,
// and so is one whose /proc/<pid>/stat exists but cannot be read or
// parsed: what cannot be proved dead is left alone.
func Alive(tag string) bool {
	pid, start, ns, ok := split(tag)
	if !ok {
		return false
	}
	if ns != 0 && ns != pidNS() {
		return true
	}
	got, err := startOf(pid)
	if err != nil {
		return !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ESRCH)
	}
	return got == start
}
