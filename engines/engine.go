package engines

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"stortest.dev/fio"
	"stortest.dev/internal/enum"
)

// Op is the operation of one I/O unit.
type Op uint8

const (
	OpRead Op = iota
	OpWrite
	OpFsync     // fsync(2): data and metadata; Buf and Offset are ignored
	OpFdatasync // fdatasync(2): data and the metadata needed to read it back
	OpTrim      // discard [Offset, Offset+len(Buf)); the buffer's bytes are not touched
)

var opNames = [...]string{"read", "write", "fsync", "fdatasync", "trim"}

// IOLogAct is the operation's action in fio's I/O log (write_iolog).
func (o Op) IOLogAct() fio.IOLogAct {
	switch o {
	case OpWrite:
		return fio.LogWrite
	case OpTrim:
		return fio.LogTrim
	case OpFsync:
		return fio.LogSync
	case OpFdatasync:
		return fio.LogDatasync
	}
	return fio.LogRead
}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Unit is one I/O unit. The runner owns and reuses units; engines never allocate
// them, and keep a pointer to a unit only between Queue and the GetEvents call
// that returns it.
type Unit struct {
	Op Op
	// File is the unit's file: 0 is Config.File, k > 0 Config.More[k-1]
	// (a job of several files, fio's nrfiles). Engines that take one
	// file only (mmap, the engines that move no data) ignore it.
	File   int32
	Offset int64 // bytes from the start of the file or device
	// Buf is the data: a slice of an aligned buffer (AllocBuffers) whose length is
	// the transfer size. It must stay valid until the unit completes: the kernel
	// holds its address while the I/O is in flight.
	Buf []byte
	// BufIndex is the index in Config.Buffers of the registered buffer Buf lives
	// in; used by io_uring with FixedBufs (READ_FIXED/WRITE_FIXED), -1 if none.
	BufIndex int
	// Res is set by the engine when the unit completes: the bytes transferred
	// (0 for fsync/fdatasync, the range length for trim) or -errno. A negative
	// Res is a per-I/O result to count, not an engine failure; Engine.Explain
	// turns it into a readable error.
	Res int64
	// Start and Issue are ns timestamps owned by the runner (fio's start_time
	// and issue_time); engines never read or write them, except WithFaults
	// with Faults.Virtual, which moves both back by the unit's injected
	// delay when it completes.
	Start, Issue int64
	Index        int // runner's slot index; engines never touch it
	// Prio is the I/O's priority, the kernel's ioprio value (class << 13 |
	// level; 0: the thread's own). libaio and io_uring pass it with the
	// I/O (fio's cmdprio options); the other engines ignore it.
	Prio uint16
	// FileOp is set by an engine with FlagFileOps: this unit did its
	// file's operation (create, stat, unlink), so its completion time is
	// that operation's latency; false for the file's other units.
	FileOp bool
}

// Err returns the errno of a failed unit (Res < 0) and nil otherwise.
// It allocates only for errno values >= 256, so call it off the hot path.
func (u *Unit) Err() error {
	if u.Res >= 0 {
		return nil
	}
	return errnoErr(-u.Res)
}

// Status is what Queue did with a unit; the values follow fio's FIO_Q_*.
type Status int

const (
	// Completed: the I/O is done and Unit.Res is set (synchronous engines,
	// or an async engine that finished or rejected the unit at once).
	Completed Status = iota
	// Queued: the unit waits for Commit and then for GetEvents.
	Queued
	// Busy: the engine cannot take the unit now. Commit what is queued, reap at
	// least one completion, then queue the unit again.
	Busy
)

var statusNames = [...]string{Completed: "completed", Queued: "queued", Busy: "busy"}

func (s Status) String() string { return enum.Name(statusNames[:], s, "Status") }

// Flags describe how an engine must be driven.
type Flags uint32

const (
	// FlagSync: Queue performs the I/O and returns Completed; there is no
	// submission latency (fio reports slat only for asynchronous engines).
	FlagSync Flags = 1 << iota
	// FlagHasCommit: Queue only stages units; Commit submits them, and the
	// runner takes the issue time after Commit returns.
	FlagHasCommit
	// FlagNoIO: no data moves (null engine); for measuring overhead.
	FlagNoIO
	// FlagNoAlign: the engine copies through memory (mmap) and imposes no
	// O_DIRECT alignment.
	FlagNoAlign
	// FlagFileOps: units stand for the bytes of whole files (Config.Files)
	// and the engine's work is one operation per file, done with the
	// file's first unit (Unit.FileOp); fio's filecreate, filestat and
	// filedelete. fio records that operation's time as clat, and no lat.
	FlagFileOps
)

func (f Flags) String() string {
	if f == 0 {
		return "0"
	}
	var parts []string
	names := []string{"sync", "commit", "noio", "noalign", "fileops"}
	for i, n := range names {
		if f&(1<<i) != 0 {
			parts = append(parts, n)
			f &^= 1 << i
		}
	}
	if f != 0 {
		parts = append(parts, fmt.Sprintf("%#x", uint32(f)))
	}
	return strings.Join(parts, "|")
}

// Engine performs I/O units, following fio's engine model:
//
//	Queue(u) ... Queue(u)    // stage up to Depth units; Busy means reap first
//	Commit()                 // submit what was staged; take the issue time after it
//	n := GetEvents(min, max) // reap; take one completion time for the batch
//	Event(0) ... Event(n-1)  // the completed units, Res set
//
// A synchronous engine (FlagSync) completes every unit inside Queue, and its
// Commit and GetEvents do nothing. Queue, Commit, GetEvents and Event allocate
// nothing. An engine belongs to one goroutine.
type Engine interface {
	Name() string
	Flags() Flags
	// Queue stages (or, for synchronous engines, performs) one unit. The error
	// is for misuse and engine failures only; an I/O that fails is Completed
	// with a negative Res.
	Queue(u *Unit) (Status, error)
	// Commit submits every unit queued since the last Commit. After it returns
	// nil every such unit is in flight or already completed.
	Commit() error
	// GetEvents reaps at least min completions (waiting for them; min is capped
	// at the number of units in flight) and at most max (max <= 0 means Depth).
	// timeout <= 0 waits without limit; when it expires, GetEvents returns the
	// completions it has, possibly fewer than min, and a nil error.
	GetEvents(min, max int, timeout time.Duration) (int, error)
	// Event returns the i-th unit reaped by the last GetEvents, 0 <= i < n.
	Event(i int) *Unit
	// Explain turns a failed unit (Res < 0) into an error that says what went
	// wrong and what to change; nil when Res >= 0. It may allocate.
	Explain(u *Unit) error
	// Close releases the engine. Reap every unit first: the kernel may still
	// write into buffers of units in flight.
	Close() error
}

// FixedBuffers reports whether e reads and writes through buffers
// registered with the kernel (io_uring's READ_FIXED and WRITE_FIXED):
// with Config.FixedBufs, or with TryFixedBufs where the kernel allowed
// the registration.
func FixedBuffers(e Engine) bool {
	r, ok := e.(interface{ fixedBuffers() bool })
	return ok && r.fixedBuffers()
}

// Config configures an engine. File is opened by the caller (with O_DIRECT
// when Direct is set: see OpenFile) and stays open until Close.
type Config struct {
	File *os.File // the target; unused by null
	// More are the further files of a job of several (sync, psync,
	// pvsync2, libaio, io_uring, posixaio): Unit.File k > 0 addresses
	// More[k-1], opened as File is, and open until Close.
	More   []*os.File
	Direct bool // File was opened with O_DIRECT; enables alignment explanations
	Depth  int  // most units in flight; 0 means 1
	// Buffers are the memory units point into, for registration (io_uring
	// FixedBufs). Unit.BufIndex indexes this slice.
	Buffers [][]byte

	// io_uring.
	SQPoll        bool          // a kernel thread polls the SQ; Commit only wakes it when it sleeps
	SQPollIdle    time.Duration // idle time before the SQ thread sleeps; 0 means the kernel's 1 s
	SQPollCPU     int           // pin the SQ thread to this CPU when >= 0 and SQPollPin is set
	SQPollPin     bool          // honour SQPollCPU (IORING_SETUP_SQ_AFF)
	FixedBufs     bool          // register Buffers; reads and writes use READ_FIXED/WRITE_FIXED
	RegisterFiles bool          // register File; SQEs use IOSQE_FIXED_FILE
	// TryFixedBufs registers Buffers as FixedBufs does when the kernel
	// and RLIMIT_MEMLOCK allow it, and otherwise goes without, as if
	// unset: the runner's default for io_uring (workload.Job.NoFixedBufs).
	TryFixedBufs bool
	// OneThread promises that Queue, Commit and GetEvents are called from
	// one OS thread (runtime.LockOSThread), the thread of the first
	// Commit. io_uring then sets its ring up as fio does, single issuer
	// with completion work deferred until the thread reaps
	// (IORING_SETUP_SINGLE_ISSUER, DEFER_TASKRUN), and registers the ring
	// with that thread so that entering it takes no file reference. A
	// call from another thread fails with EEXIST. Close on that thread
	// drops the registration; a caller that closes elsewhere lets the
	// thread exit (its goroutine returns without UnlockOSThread), when
	// the kernel drops it.
	OneThread bool
	// HiPri: io_uring IOPOLL (completions are polled, needs O_DIRECT and a device
	// with poll queues), or RWF_HIPRI for pvsync2.
	HiPri bool

	// pvsync2.
	NoWait bool // RWF_NOWAIT: an I/O that would block fails with -EAGAIN instead

	// mmap: bytes to map from offset 0; 0 means the size of File. A regular
	// file shorter than Size is extended.
	Size int64

	// cpuio: each unit burns the CPU for CPUChunk (0: 50 ms, fio's
	// cpuchunks default), in a busy loop or, with CPUQsort, sorting.
	CPUChunk time.Duration
	CPUQsort bool

	// filecreate, filestat, filedelete: the files units stand for, and
	// filestat's call (stat, lstat or statx; "" is stat).
	Files    FileSet
	StatType string

	// exec: the program to run.
	Exec *ExecSpec

	// net: the socket.
	Net *NetSpec
	// Stop, when set, tells an engine that waits for a peer (net)
	// whether the job is over (its runtime, or a stop): the wait then
	// ends without the unit. It is called once per wait step, never per
	// I/O that does not wait.
	Stop func() bool
}

func (c Config) depth() int {
	if c.Depth <= 0 {
		return 1
	}
	return c.Depth
}

// Sentinel errors for errors.Is. Errors returned by this package start with
// "engines: " and wrap these (and the kernel's errno) where they apply.
var (
	ErrUnknownEngine     = errors.New("unknown engine")
	ErrConfig            = errors.New("invalid config")
	ErrClosed            = errors.New("engines: engine is closed")
	ErrMisaligned        = errors.New("misaligned direct I/O")
	ErrIOPollUnsupported = errors.New("polled I/O (IOPOLL/HIPRI) not supported here")
	ErrMemlock           = errors.New("registered buffers exceed the locked-memory limit")
	ErrUnsupported       = errors.New("not supported by this kernel or system")
	ErrNoDirectIO        = errors.New("direct I/O not supported by the backing file system")
)

type factory func(cfg Config) (Engine, error)

// Traits are what the rest of stortest knows of an engine before it
// runs one: a new engine's row in the registry says them once.
type Traits struct {
	// NoFile: the engine works on no file the caller opens
	// (Config.File): a socket (net), nothing (null, cpuio, exec), or the
	// files it names itself (the file engines: Config.Files).
	NoFile bool
	// Sync: one I/O at a time whatever the depth; Queue completes it.
	Sync bool
	// MultiFile: each unit names its file, so a job may spread over
	// several files (nrfiles above 1).
	MultiFile bool
}

var registry = []struct {
	name string
	new  factory
	Traits
}{
	{"null", newNull, Traits{NoFile: true, MultiFile: true}},
	{"sync", newSyncEngine, Traits{Sync: true, MultiFile: true}},
	{"psync", newPsync, Traits{Sync: true, MultiFile: true}},
	{"pvsync2", newPvsync2, Traits{Sync: true, MultiFile: true}},
	{"libaio", newLibaio, Traits{MultiFile: true}},
	{"io_uring", newUring, Traits{MultiFile: true}},
	{"mmap", newMmap, Traits{Sync: true}},
	{"falloc", newFalloc, Traits{}},
	{"ftruncate", newFtruncate, Traits{}},
	{"cpuio", newCPUIO, Traits{NoFile: true}},
	{"filecreate", newFileCreate, Traits{NoFile: true}},
	{"filestat", newFileStat, Traits{NoFile: true}},
	{"filedelete", newFileDelete, Traits{NoFile: true}},
	{"exec", newExec, Traits{NoFile: true}},
	{"posixaio", newPosixAIO, Traits{MultiFile: true}},
	{"net", newNet, Traits{NoFile: true}},
}

// TraitsOf returns the traits of the engine called name, and whether
// New knows it.
func TraitsOf(name string) (Traits, bool) {
	for _, r := range registry {
		if r.name == name {
			return r.Traits, true
		}
	}
	return Traits{}, false
}

// NamesWith lists the engines whose traits satisfy keep, in New's
// order.
func NamesWith(keep func(Traits) bool) []string {
	var out []string
	for _, r := range registry {
		if keep(r.Traits) {
			out = append(out, r.name)
		}
	}
	return out
}

// Names lists the engines New knows, in a fixed order.
func Names() []string {
	out := make([]string, len(registry))
	for i, r := range registry {
		out[i] = r.name
	}
	return out
}

// New creates the engine called name (fio's ioengine names).
func New(name string, cfg Config) (Engine, error) {
	for _, r := range registry {
		if r.name == name {
			if cfg.Depth < 0 {
				return nil, fmt.Errorf("engines: %w: depth %d < 0", ErrConfig, cfg.Depth)
			}
			if NeedsFile(name) && cfg.File == nil {
				return nil, fmt.Errorf("engines: %w: %s needs Config.File", ErrConfig, name)
			}
			return r.new(cfg)
		}
	}
	return nil, fmt.Errorf("engines: %w %q (known: %s)", ErrUnknownEngine, name, strings.Join(Names(), ", "))
}

// eventBounds reads GetEvents' bounds as the interface defines them, for
// an engine of the given depth with ready units it could still return (in
// flight or already reaped): max <= 0 or over the depth means the depth,
// and min is capped at max and at ready.
func eventBounds(lo, hi, depth, ready int) (int, int) {
	if hi <= 0 || hi > depth {
		hi = depth
	}
	return min(lo, hi, ready), hi
}

// dropFront removes q's first n elements, keeping the rest in order at
// the front of q's array, and clears the freed tail so that it holds on
// to nothing. It allocates nothing.
func dropFront[E any](q []E, n int) []E {
	rest := copy(q, q[n:])
	clear(q[rest:])
	return q[:rest]
}
