package engines

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestPerIOErrors checks that failed I/Os come back as Res = -errno (data, not
// Go errors), that Explain says why, and that the engine keeps working after.
func TestPerIOErrors(t *testing.T) {
	const size = 1 << 20
	type ioCase struct {
		name    string
		u       Unit
		want    int64  // Res
		noAlign int64  // Res for engines that copy through memory (mmap)
		is      error  // errors.Is(Explain(u), is) when want < 0
		explain string // substring of Explain(u)
	}
	loopCases := []ioCase{
		{name: "read-at-end", u: Unit{Op: OpRead, Offset: size}, want: 0, noAlign: 0},
		{name: "write-past-end", u: Unit{Op: OpWrite, Offset: size}, want: -int64(unix.ENOSPC), noAlign: -int64(unix.ENOSPC),
			is: unix.ENOSPC, explain: "past the end of the device (size 1048576)"},
		{name: "misaligned-offset", u: Unit{Op: OpRead, Offset: 512}, want: -int64(unix.EINVAL), noAlign: 4096,
			is: ErrMisaligned, explain: "multiples of the logical block size 4096; got offset 512 len 4096 addr%4096=0"},
	}
	fileCases := []ioCase{
		{name: "read-at-end", u: Unit{Op: OpRead, Offset: size}, want: 0, noAlign: 0},
		{name: "misaligned-offset", u: Unit{Op: OpRead, Offset: 100}, want: -int64(unix.EINVAL), noAlign: 4096,
			is: ErrMisaligned, explain: "got offset 100 len 4096"},
	}
	tgs := []struct {
		name  string
		path  func(t *testing.T) string
		cases []ioCase
	}{
		{"file-direct", func(t *testing.T) string { return tempFile(t, size) }, fileCases},
		{"loop-direct", func(t *testing.T) string {
			return attachLoop(t, size, LoopOptions{DirectIO: true, BlockSize: 4096}).Path()
		}, loopCases},
	}
	for _, tg := range tgs {
		t.Run(tg.name, func(t *testing.T) {
			path := tg.path(t)
			bufs := allocBuffers(t, 1, 4096)
			for _, v := range variants {
				if v.engine == "null" {
					continue
				}
				t.Run(v.name, func(t *testing.T) {
					f := openT(t, path, true)
					cfg := Config{File: f, Direct: true, Depth: 4, Buffers: bufs.All()}
					if v.cfg != nil {
						v.cfg(&cfg)
					}
					e := newEngine(t, v.engine, cfg)
					for _, c := range tg.cases {
						u := c.u
						u.Buf, u.BufIndex, u.Res = bufs.Buf(0), 0, -999
						if _, err := drive(e, []*Unit{&u}); err != nil {
							t.Fatalf("%s: drive: %v", c.name, err)
						}
						want := c.want
						if e.Flags()&FlagNoAlign != 0 {
							want = c.noAlign
						}
						if u.Res != want {
							t.Errorf("%s: Res = %d, want %d (%v)", c.name, u.Res, want, e.Explain(&u))
							continue
						}
						err := e.Explain(&u)
						if want >= 0 {
							if err != nil {
								t.Errorf("%s: Explain = %v, want nil", c.name, err)
							}
							continue
						}
						if !errors.Is(err, c.is) || !errors.Is(err, unix.Errno(-want)) {
							t.Errorf("%s: Explain = %v, want it to wrap %v and %v", c.name, err, c.is, unix.Errno(-want))
						}
						if err != nil && !strings.Contains(err.Error(), c.explain) {
							t.Errorf("%s: Explain = %q, want it to contain %q", c.name, err, c.explain)
						}
						if !errors.Is(u.Err(), unix.Errno(-want)) {
							t.Errorf("%s: Unit.Err = %v, want %v", c.name, u.Err(), unix.Errno(-want))
						}
					}
					// A failed unit is data: the engine goes on.
					u := Unit{Op: OpRead, Buf: bufs.Buf(0), BufIndex: 0, Res: -999}
					if _, err := drive(e, []*Unit{&u}); err != nil || u.Res != 4096 {
						t.Errorf("read after errors: Res = %d, err = %v; want 4096, nil", u.Res, err)
					}
				})
			}
		})
	}
}

func TestCheckAlignment(t *testing.T) {
	bufs := allocBuffers(t, 1, 16384)
	b := bufs.Buf(0)
	tests := []struct {
		name string
		u    Unit
		lbs  int
		ok   bool
		msg  string
	}{
		{name: "aligned", u: Unit{Op: OpRead, Offset: 8192, Buf: b[:4096]}, lbs: 4096, ok: true},
		{name: "aligned-512", u: Unit{Op: OpWrite, Offset: 1536, Buf: b[512:1024]}, lbs: 512, ok: true},
		{name: "offset", u: Unit{Op: OpRead, Offset: 512, Buf: b[:4096]}, lbs: 4096, msg: "got offset 512 len 4096 addr%4096=0"},
		{name: "length", u: Unit{Op: OpRead, Offset: 0, Buf: b[:1000]}, lbs: 512, msg: "got offset 0 len 1000 addr%512=0"},
		{name: "address", u: Unit{Op: OpWrite, Offset: 0, Buf: b[512 : 512+4096]}, lbs: 4096, msg: "got offset 0 len 4096 addr%4096=512"},
		{name: "empty", u: Unit{Op: OpRead, Offset: 0, Buf: nil}, lbs: 512, msg: "got offset 0 len 0"},
		{name: "fsync-no-range", u: Unit{Op: OpFsync, Offset: 3}, lbs: 4096, ok: true},
		{name: "trim-ignores-address", u: Unit{Op: OpTrim, Offset: 4096, Buf: b[1:4097]}, lbs: 4096, ok: true},
		{name: "trim-offset", u: Unit{Op: OpTrim, Offset: 100, Buf: b[:4096]}, lbs: 4096, msg: "got offset 100"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckAlignment(&tc.u, tc.lbs)
			if tc.ok {
				if err != nil {
					t.Fatalf("CheckAlignment = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, ErrMisaligned) || !errors.Is(err, unix.EINVAL) {
				t.Fatalf("CheckAlignment = %v, want ErrMisaligned and EINVAL", err)
			}
			if !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "engines: ") {
				t.Errorf("CheckAlignment = %q, want prefix %q and %q in it", err, "engines: ", tc.msg)
			}
		})
	}
	if err := CheckAlignment(&Unit{}, 0); !errors.Is(err, ErrConfig) {
		t.Errorf("CheckAlignment(lbs 0) = %v, want ErrConfig", err)
	}
}

// TestExplain covers explanations of results the tests cannot easily cause.
func TestExplain(t *testing.T) {
	tests := []struct {
		name string
		ctx  explainCtx
		u    Unit
		is   []error
		msg  string
	}{
		{name: "iopoll", ctx: explainCtx{engine: "io_uring", direct: true, lbs: 512, iopoll: true},
			u:  Unit{Op: OpRead, Buf: make([]byte, 512), Res: -int64(unix.EOPNOTSUPP)},
			is: []error{ErrIOPollUnsupported, unix.EOPNOTSUPP}, msg: "poll queues"},
		{name: "eopnotsupp-without-iopoll", ctx: explainCtx{engine: "psync"},
			u:  Unit{Op: OpRead, Res: -int64(unix.EOPNOTSUPP)},
			is: []error{unix.EOPNOTSUPP}, msg: "engines: psync read offset 0 len 0: operation not supported"},
		{name: "trim-unsupported", ctx: explainCtx{engine: "psync"},
			u:  Unit{Op: OpTrim, Res: -int64(unix.EOPNOTSUPP)},
			is: []error{unix.EOPNOTSUPP}, msg: "does not support discard"},
		{name: "einval-aligned", ctx: explainCtx{engine: "libaio", direct: true, lbs: 1},
			u:  Unit{Op: OpRead, Buf: make([]byte, 8), Res: -int64(unix.EINVAL)},
			is: []error{unix.EINVAL}, msg: "are aligned to the logical block size 1"},
		{name: "eio", ctx: explainCtx{engine: "sync"},
			u:  Unit{Op: OpWrite, Offset: 4096, Buf: make([]byte, 4096), Res: -int64(unix.EIO)},
			is: []error{unix.EIO}, msg: "engines: sync write offset 4096 len 4096: input/output error"},
		{name: "fsync", ctx: explainCtx{engine: "libaio"},
			u:  Unit{Op: OpFdatasync, Res: -int64(unix.EIO)},
			is: []error{unix.EIO}, msg: "engines: libaio fdatasync: input/output error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := explain(&tc.u, tc.ctx)
			for _, is := range tc.is {
				if !errors.Is(err, is) {
					t.Errorf("explain = %v, want it to wrap %v", err, is)
				}
			}
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("explain = %v, want it to contain %q", err, tc.msg)
			}
		})
	}
	if err := explain(&Unit{Res: 0}, explainCtx{}); err != nil {
		t.Errorf("explain(Res 0) = %v, want nil", err)
	}
}
