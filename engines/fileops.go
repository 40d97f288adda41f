package engines

import (
	"fmt"
	"path/filepath"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// NeedsFile reports whether the engine called name works on a file the
// caller opens (Config.File): every engine but those whose Traits say
// NoFile (null, cpuio, exec, net, and the file engines filecreate,
// filestat and filedelete, which name their own files: Config.Files).
// An unknown name needs one.
func NeedsFile(name string) bool {
	t, _ := TraitsOf(name)
	return !t.NoFile
}

// FileSet names the files of the file engines. File i of N is
// Dir/Prefix<i> (fio's default names, jobname.jobnum.filenum, have the
// prefix "jobname.jobnum."), or, when Name is set, the one file Name
// (N is then 1). Each file stands for Size bytes of the units' offsets:
// the unit at offset o belongs to file o/Size, and the unit at a
// multiple of Size does the file's operation.
type FileSet struct {
	Dir    string
	Prefix string
	Name   string
	Names  []string // file i is Names[i] (fio's filename_format), when Name is ""
	N      int
	Size   int64
}

// Path returns the path of file i.
func (s FileSet) Path(i int) string {
	if s.Name != "" {
		return s.Name
	}
	if s.Names != nil {
		return s.Names[i]
	}
	p := s.Prefix + strconv.Itoa(i)
	if s.Dir != "" {
		p = filepath.Join(s.Dir, p)
	}
	return p
}

func (s FileSet) check() error {
	switch {
	case s.Size <= 0:
		return fmt.Errorf("engines: %w: file size %d", ErrConfig, s.Size)
	case s.N < 1:
		return fmt.Errorf("engines: %w: %d files", ErrConfig, s.N)
	case s.Name != "" && s.N != 1:
		return fmt.Errorf("engines: %w: one Name for %d files", ErrConfig, s.N)
	case s.Names != nil && len(s.Names) != s.N:
		return fmt.Errorf("engines: %w: %d Names for %d files", ErrConfig, len(s.Names), s.N)
	case s.Name == "" && s.Prefix == "" && s.Names == nil:
		return fmt.Errorf("engines: %w: the files need a Name, Names or a Prefix", ErrConfig)
	}
	return nil
}

type fileOpKind uint8

const (
	opCreate fileOpKind = iota
	opStat
	opDelete
)

var fileOpEngines = [...]string{"filecreate", "filestat", "filedelete"}

// fileOps is fio's filecreate, filestat and filedelete: no data moves;
// each unit counts its bytes, and the first unit of each file (Unit.FileOp)
// does the engine's one call on it, whose time is the unit's latency:
//
//	filecreate  open(O_RDWR|O_CREAT, 0600), then close: the file is made
//	            empty, as fio's (its close is not timed, this one's is,
//	            a microsecond or so)
//	filestat    stat(2), or lstat (StatType "lstat") or statx(STATX_ALL)
//	filedelete  unlink(2)
//
// The file names are formatted into a buffer made once, so Queue
// allocates nothing.
type fileOps struct {
	kind  fileOpKind
	files FileSet
	path  []byte // the current file's NUL-terminated path; path[:base] is fixed
	base  int
	lstat bool
	statx bool
	st    unix.Stat_t
	stx   unix.Statx_t
	inline
}

var _ Engine = (*fileOps)(nil)

func newFileCreate(cfg Config) (Engine, error) { return newFileOps(opCreate, cfg) }
func newFileStat(cfg Config) (Engine, error)   { return newFileOps(opStat, cfg) }
func newFileDelete(cfg Config) (Engine, error) { return newFileOps(opDelete, cfg) }

func newFileOps(kind fileOpKind, cfg Config) (Engine, error) {
	if err := cfg.Files.check(); err != nil {
		return nil, err
	}
	e := &fileOps{kind: kind, files: cfg.Files}
	switch cfg.StatType {
	case "", "stat":
	case "lstat":
		e.lstat = true
	case "statx":
		e.statx = true
	default:
		return nil, fmt.Errorf("engines: %w: stat type %q (want stat, lstat or statx)", ErrConfig, cfg.StatType)
	}
	if cfg.StatType != "" && kind != opStat {
		return nil, fmt.Errorf("engines: %w: %s takes no stat type", ErrConfig, fileOpEngines[kind])
	}
	if cfg.Files.Name != "" {
		e.path = append([]byte(cfg.Files.Name), 0)
		e.base = len(cfg.Files.Name)
	} else {
		prefix := cfg.Files.Path(0)
		prefix = prefix[:len(prefix)-1] // the index's digit
		e.base = len(prefix)
		e.path = make([]byte, 0, e.base+24)
		e.path = append(e.path, prefix...)
	}
	return e, nil
}

func (e *fileOps) Name() string { return fileOpEngines[e.kind] }

func (e *fileOps) Flags() Flags { return FlagSync | FlagNoIO | FlagNoAlign | FlagFileOps }

func (e *fileOps) Queue(u *Unit) (Status, error) {
	if e.closed {
		return Busy, ErrClosed
	}
	u.FileOp = false
	if u.Op == OpFsync || u.Op == OpFdatasync {
		u.Res = 0
		return Completed, nil
	}
	u.Res = int64(len(u.Buf))
	if u.Offset < 0 || u.Offset%e.files.Size != 0 {
		return Completed, nil
	}
	i := u.Offset / e.files.Size
	if i >= int64(e.files.N) {
		u.Res = -int64(unix.EINVAL)
		return Completed, nil
	}
	if e.files.Name == "" {
		e.path = strconv.AppendInt(e.path[:e.base], i, 10)
		e.path = append(e.path, 0)
	}
	u.FileOp = true
	if r := e.do(); r < 0 {
		u.Res = r
	}
	return Completed, nil
}

// do performs the engine's call on the current path: 0 or -errno.
func (e *fileOps) do() int64 {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(e.path)))
	for {
		var r uintptr
		var errno unix.Errno
		switch e.kind {
		case opCreate:
			r, _, errno = unix.RawSyscall6(unix.SYS_OPENAT, atFDCWD, p, unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC, 0o600, 0, 0)
			if errno == 0 {
				unix.RawSyscall(unix.SYS_CLOSE, r, 0, 0)
			}
		case opStat:
			if e.statx {
				r, _, errno = unix.RawSyscall6(unix.SYS_STATX, atFDCWD, p, unix.AT_STATX_SYNC_AS_STAT, unix.STATX_ALL, uintptr(unsafe.Pointer(&e.stx)), 0)
			} else {
				flags := uintptr(0)
				if e.lstat {
					flags = unix.AT_SYMLINK_NOFOLLOW
				}
				r, _, errno = unix.RawSyscall6(unix.SYS_NEWFSTATAT, atFDCWD, p, uintptr(unsafe.Pointer(&e.st)), flags, 0, 0)
			}
		case opDelete:
			r, _, errno = unix.RawSyscall(unix.SYS_UNLINKAT, atFDCWD, p, 0)
		}
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return res(r, errno)
		}
		return 0
	}
}

// atFDCWD is AT_FDCWD (-100) as a syscall argument.
var atFDCWD = func() uintptr { fd := unix.AT_FDCWD; return uintptr(fd) }()

// Explain names the file whose call failed.
func (e *fileOps) Explain(u *Unit) error {
	if u.Res >= 0 {
		return nil
	}
	errno := unix.Errno(-u.Res)
	if !u.FileOp {
		return fmt.Errorf("engines: %s %s offset %d len %d: %w", e.Name(), u.Op, u.Offset, len(u.Buf), errno)
	}
	name := e.files.Path(int(u.Offset / e.files.Size))
	call := [...]string{"create", "stat", "unlink"}[e.kind]
	if e.kind == opStat && e.lstat {
		call = "lstat"
	} else if e.kind == opStat && e.statx {
		call = "statx"
	}
	err := fmt.Errorf("engines: %s: %s %s: %w", e.Name(), call, name, errno)
	if errno == unix.ENOENT && e.kind != opCreate {
		err = fmt.Errorf("%w (the file is gone: deleted by an earlier pass or job, or never laid out)", err)
	}
	return err
}

func (e *fileOps) Close() error {
	e.closed = true
	return nil
}
