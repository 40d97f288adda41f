package engines

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNames(t *testing.T) {
	want := []string{"null", "sync", "psync", "pvsync2", "libaio", "io_uring", "mmap",
		"falloc", "ftruncate", "cpuio", "filecreate", "filestat", "filedelete", "exec", "posixaio", "net"}
	if diff := cmp.Diff(want, Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
}

func TestNewErrors(t *testing.T) {
	_, err := New("solarisaio", Config{})
	if !errors.Is(err, ErrUnknownEngine) {
		t.Fatalf("unknown engine: %v", err)
	}
	for _, s := range []string{`"solarisaio"`, "null, sync, psync, pvsync2, libaio, io_uring, mmap, falloc, ftruncate, cpuio, filecreate, filestat, filedelete, exec, posixaio", "engines: "} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%q lacks %q", err, s)
		}
	}
	for _, name := range Names() {
		if name == "null" || name == "cpuio" {
			continue
		}
		// The file engines need Config.Files instead.
		if _, err := New(name, Config{}); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%q) without a file: %v, want ErrConfig", name, err)
		}
	}
	if _, err := New("null", Config{Depth: -1}); !errors.Is(err, ErrConfig) {
		t.Errorf("negative depth: %v, want ErrConfig", err)
	}
}

func TestStrings(t *testing.T) {
	tests := []struct{ got, want string }{
		{OpRead.String(), "read"},
		{OpWrite.String(), "write"},
		{OpFsync.String(), "fsync"},
		{OpFdatasync.String(), "fdatasync"},
		{OpTrim.String(), "trim"},
		{Op(9).String(), "Op(9)"},
		{Completed.String(), "completed"},
		{Queued.String(), "queued"},
		{Busy.String(), "busy"},
		{Status(7).String(), "Status(7)"},
		{Flags(0).String(), "0"},
		{(FlagSync | FlagNoIO).String(), "sync|noio"},
		{(FlagHasCommit | 1<<9).String(), "commit|0x200"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// TestFlagsAndClose checks every engine's flags and that a closed engine
// refuses work instead of touching freed resources.
func TestFlagsAndClose(t *testing.T) {
	f := openT(t, tempFile(t, 1<<20), false)
	want := map[string]Flags{
		"null": FlagHasCommit | FlagNoIO | FlagNoAlign, "sync": FlagSync, "psync": FlagSync,
		"pvsync2": FlagSync, "libaio": FlagHasCommit, "io_uring": FlagHasCommit, "mmap": FlagSync | FlagNoAlign,
		"falloc": FlagSync | FlagNoIO | FlagNoAlign, "ftruncate": FlagSync | FlagNoIO | FlagNoAlign,
		"cpuio":      FlagSync | FlagNoIO | FlagNoAlign,
		"filecreate": FlagSync | FlagNoIO | FlagNoAlign | FlagFileOps, "filestat": FlagSync | FlagNoIO | FlagNoAlign | FlagFileOps,
		"filedelete": FlagSync | FlagNoIO | FlagNoAlign | FlagFileOps, "exec": FlagSync | FlagNoIO | FlagNoAlign,
		"net": FlagSync | FlagNoAlign,
	}
	files := FileSet{Dir: t.TempDir(), Prefix: "f.0.", N: 1, Size: 4096}
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			e, err := New(name, Config{File: f, Depth: 4, Files: files, Exec: &ExecSpec{Path: "/bin/true"},
				Net: &NetSpec{Proto: "tcp", Port: freePort(t, "tcp"), Listen: true}})
			if err != nil {
				t.Fatal(err)
			}
			if e.Name() != name || e.Flags() != want[name] {
				t.Errorf("Name %q Flags %v, want %q %v", e.Name(), e.Flags(), name, want[name])
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if err := e.Close(); err != nil {
				t.Errorf("second Close = %v", err)
			}
			u := Unit{Op: OpRead, Buf: make([]byte, 512)}
			if _, err := e.Queue(&u); !errors.Is(err, ErrClosed) {
				t.Errorf("Queue after Close = %v, want ErrClosed", err)
			}
			if err := e.Commit(); !errors.Is(err, ErrClosed) {
				t.Errorf("Commit after Close = %v, want ErrClosed", err)
			}
			if _, err := e.GetEvents(0, 0, 0); !errors.Is(err, ErrClosed) {
				t.Errorf("GetEvents after Close = %v, want ErrClosed", err)
			}
		})
	}
}

// Each engine's Traits say what it does: a Sync engine completes a read
// inside Queue at depth 8, an asynchronous one queues it; a NoFile
// engine needs no Config.File (or is the net or a file engine, which
// need a socket or Config.Files instead), any other refuses to start
// without one.
func TestTraitsAreTheEngines(t *testing.T) {
	path := tempFile(t, 1<<20)
	for _, v := range variants {
		if v.cfg != nil {
			continue
		}
		t.Run(v.engine, func(t *testing.T) {
			tr, ok := TraitsOf(v.engine)
			if !ok {
				t.Fatalf("TraitsOf(%q): unknown", v.engine)
			}
			f := openT(t, path, false)
			bufs := allocBuffers(t, 1, 4096)
			e := newEngine(t, v.engine, Config{File: f, Depth: 8, Buffers: bufs.All()})
			st, err := e.Queue(&Unit{Op: OpRead, Offset: 0, Buf: bufs.Buf(0)[:4096], Res: -999})
			if err != nil {
				t.Fatal(err)
			}
			if got := st == Completed; got != tr.Sync {
				t.Errorf("Queue at depth 8: %v, but Traits.Sync is %v", st, tr.Sync)
			}
		})
	}
	for _, name := range Names() {
		tr, _ := TraitsOf(name)
		if _, err := New(name, Config{}); !tr.NoFile && !errors.Is(err, ErrConfig) {
			t.Errorf("New(%q) without a file: %v, want ErrConfig (Traits.NoFile is false)", name, err)
		}
		if NeedsFile(name) == tr.NoFile {
			t.Errorf("NeedsFile(%q) = %v with Traits.NoFile %v", name, NeedsFile(name), tr.NoFile)
		}
	}
	if _, ok := TraitsOf("solarisaio"); ok {
		t.Error("TraitsOf knows solarisaio")
	}
}
