package engines

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"stortest.dev/internal/kernelfs"
)

// Kernel ABI of io_uring (linux/io_uring.h), defined here because x/sys has
// only the syscall numbers. Sizes are asserted in tests.

// uringSQE is struct io_uring_sqe, 64 bytes.
type uringSQE struct {
	Opcode      uint8
	Flags       uint8 // IOSQE_*
	Ioprio      uint16
	Fd          int32 // descriptor, or index in the registered files with IOSQE_FIXED_FILE
	Off         uint64
	Addr        uint64
	Len         uint32
	OpFlags     uint32 // rw_flags, fsync_flags, ...
	UserData    uint64 // returned in the CQE: the engine's slot number
	BufIndex    uint16 // registered buffer for READ_FIXED/WRITE_FIXED
	Personality uint16
	SpliceFdIn  int32
	Addr3       uint64
	_           uint64
}

// uringCQE is struct io_uring_cqe, 16 bytes (no CQE32).
type uringCQE struct {
	UserData uint64
	Res      int32 // bytes or -errno
	Flags    uint32
}

// uringRsrcUpdate is struct io_uring_rsrc_update, as IORING_REGISTER_RING_FDS
// reads it: Offset is the slot (^0: the kernel picks one and writes it back),
// Data the ring's descriptor.
type uringRsrcUpdate struct {
	Offset, Resv uint32
	Data         uint64
}

type sqringOffsets struct {
	Head, Tail, RingMask, RingEntries, Flags, Dropped, Array, Resv1 uint32
	UserAddr                                                        uint64
}

type cqringOffsets struct {
	Head, Tail, RingMask, RingEntries, Overflow, Cqes, Flags, Resv1 uint32
	UserAddr                                                        uint64
}

// uringParams is struct io_uring_params, 120 bytes.
type uringParams struct {
	SQEntries    uint32
	CQEntries    uint32
	Flags        uint32 // IORING_SETUP_*
	SQThreadCPU  uint32
	SQThreadIdle uint32 // ms
	Features     uint32 // IORING_FEAT_*, set by the kernel
	WQFd         uint32
	Resv         [3]uint32
	SQOff        sqringOffsets
	CQOff        cqringOffsets
}

// uringGetEventsArg is struct io_uring_getevents_arg, 24 bytes.
type uringGetEventsArg struct {
	Sigmask     uint64
	SigmaskSz   uint32
	MinWaitUsec uint32
	Ts          uint64 // *__kernel_timespec
}

const (
	ioringOpFsync      = 3
	ioringOpReadFixed  = 4
	ioringOpWriteFixed = 5
	ioringOpRead       = 22
	ioringOpWrite      = 23

	ioringSetupIOPoll       = 1 << 0
	ioringSetupSQPoll       = 1 << 1
	ioringSetupSQAff        = 1 << 2
	ioringSetupCQSize       = 1 << 3
	ioringSetupRDisabled    = 1 << 6
	ioringSetupCoopTaskrun  = 1 << 8
	ioringSetupSingleIssuer = 1 << 12
	ioringSetupDeferTaskrun = 1 << 13

	ioringFeatSingleMmap = 1 << 0
	ioringFeatNoDrop     = 1 << 1
	ioringFeatExtArg     = 1 << 8

	ioringEnterGetEvents      = 1 << 0
	ioringEnterSQWakeup       = 1 << 1
	ioringEnterExtArg         = 1 << 3
	ioringEnterRegisteredRing = 1 << 4

	ioringSQNeedWakeup = 1 << 0

	ioringOffSQRing = 0
	ioringOffCQRing = 0x8000000
	ioringOffSQEs   = 0x10000000

	ioringRegisterBuffers     = 0
	ioringRegisterFiles       = 2
	ioringRegisterEnableRings = 12
	ioringRegisterRingFds     = 20
	ioringUnregisterRingFds   = 21

	iosqeFixedFile = 1 << 0

	ioringFsyncDatasync = 1 << 0

	// ioringMaxEntries is the kernel's IORING_MAX_ENTRIES.
	ioringMaxEntries = 32768
)

// uring is fio's "io_uring" over a ring set up here: io_uring_setup, one mmap
// for both rings when the kernel offers IORING_FEAT_SINGLE_MMAP, one for the
// SQE array, io_uring_enter to submit and wait, and the CQ ring read directly.
// Options: registered buffers (READ_FIXED/WRITE_FIXED), a registered file
// (IOSQE_FIXED_FILE), SQPOLL (a kernel thread submits; Commit only wakes it
// when it has gone idle) and IOPOLL (Config.HiPri; completions are polled).
//
// Queue writes the SQE straight into the ring; Commit publishes the SQ tail.
// The ring has at least Depth SQ entries and twice as many CQ entries, and at
// most Depth units are in flight, so the CQ never overflows.
//
// Completions of some I/O are delivered through task work on the thread that
// submitted: a runner that locks its goroutine to a thread
// (runtime.LockOSThread) keeps submission and reaping on one thread.
type uring struct {
	cfg    Config
	fd     int   // target descriptor
	fds    files // fd and Config.More's
	ringFd int
	p      uringParams

	sqRing, cqRing, sqesMem []byte // cqRing == sqRing with SINGLE_MMAP

	sqHead, sqTail, sqFlags *uint32
	sqMask, sqEntries       uint32
	sqes                    []uringSQE
	cqHead, cqTail          *uint32
	cqMask                  uint32
	cqes                    []uringCQE

	sqLocalTail uint32 // next SQE to fill
	toSubmit    int    // filled since the last Commit
	submitted   int    // consumed by the kernel, not yet reaped

	depth int
	units []*Unit // slot -> unit; the slot is the SQE's user_data
	free  []int32
	out   []*Unit // the last GetEvents batch

	iopoll, sqpoll, fixedBufs, fixedFile, extArg bool
	// tryBufs: register the buffers if the kernel lets us (TryFixedBufs);
	// units outside them then go as plain reads and writes.
	tryBufs  bool
	disabled bool // IORING_SETUP_R_DISABLED until the first Commit
	// enterFd and enterFlags are what io_uring_enter is given: the ring's
	// descriptor, or its slot among the thread's registered rings with
	// IORING_ENTER_REGISTERED_RING. regTid is that thread.
	enterFd    int
	enterFlags uint32
	regTid     int
	nbufs      int
	arg        uringGetEventsArg
	ts         unix.Timespec

	trim   trimmer
	expl   explainCtx
	closed bool
}

var _ Engine = (*uring)(nil)

// iopollPrecheck makes New refuse IOPOLL on a device whose queue has no poll
// support (sysfs queue/io_poll = 0), which would fail every I/O with
// EOPNOTSUPP. Tests turn it off to observe the kernel's own answer.
var iopollPrecheck = true

func newUring(cfg Config) (Engine, error) {
	d := cfg.depth()
	if d > ioringMaxEntries {
		return nil, fmt.Errorf("engines: %w: io_uring depth %d > %d", ErrConfig, d, ioringMaxEntries)
	}
	expl, err := newExplainCtx("io_uring", cfg)
	if err != nil {
		return nil, err
	}
	e := &uring{
		cfg:       cfg,
		fd:        fdOf(cfg),
		fds:       filesOf(cfg),
		ringFd:    -1,
		depth:     d,
		units:     make([]*Unit, d),
		free:      make([]int32, d),
		out:       make([]*Unit, d),
		iopoll:    cfg.HiPri,
		sqpoll:    cfg.SQPoll,
		fixedBufs: cfg.FixedBufs,
		tryBufs:   cfg.TryFixedBufs && !cfg.FixedBufs && len(cfg.Buffers) > 0,
		fixedFile: cfg.RegisterFiles,
		expl:      expl,
	}
	e.trim = newTrimmer(e.fd)
	for i := range e.free {
		e.free[i] = int32(d - 1 - i)
	}
	if e.iopoll {
		if err := checkIOPoll(cfg); err != nil {
			return nil, err
		}
	}
	if err := e.setup(); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// checkIOPoll explains up front what would otherwise fail every I/O.
func checkIOPoll(cfg Config) error {
	if !cfg.Direct {
		return fmt.Errorf("engines: io_uring: %w: IOPOLL (hipri) needs O_DIRECT: buffered I/O completes "+
			"through the page cache and cannot be polled", ErrIOPollUnsupported)
	}
	if !iopollPrecheck {
		return nil
	}
	st, err := fstat(cfg.File)
	if err != nil {
		return err
	}
	dev := st.Dev
	if isBlockDev(&st) {
		dev = st.Rdev
	}
	if p, off := ioPollOff(kernelfs.Default(), dev); off {
		return fmt.Errorf("engines: io_uring: %w: %s has no poll queues (%s = 0); IOPOLL would fail every I/O "+
			"with EOPNOTSUPP. Polling needs a device with poll queues (NVMe with nvme.poll_queues > 0); loop "+
			"devices and virtio disks have none: turn off hipri/IOPOLL",
			ErrIOPollUnsupported, cfg.File.Name(), p)
	}
	return nil // unknown: the per-I/O result and Explain will tell
}

// ioPollOff reports whether the block device numbered dev (or, for a
// partition, its disk) says it has no poll queues: queue/io_poll is 0
// under <sys>/dev/block/MAJ:MIN. It returns the file it read; off is
// false when neither file can be read (unknown).
func ioPollOff(k kernelfs.FS, dev uint64) (path string, off bool) {
	for _, p := range []string{
		k.DevBlockPath(dev, "queue", "io_poll"),
		// A partition's disk: its sysfs directory's parent, which ".."
		// reaches only through the link (a path join would clean it away).
		k.DevBlockPath(dev) + "/../queue/io_poll",
	} {
		s, err := kernelfs.ReadString(p)
		if err != nil {
			continue
		}
		return p, s == "0"
	}
	return "", false
}

func (e *uring) setup() error {
	p := &e.p
	if e.iopoll {
		p.Flags |= ioringSetupIOPoll
	}
	if e.sqpoll {
		p.Flags |= ioringSetupSQPoll
		p.SQThreadIdle = uint32(e.cfg.SQPollIdle / time.Millisecond)
		if e.cfg.SQPollPin && e.cfg.SQPollCPU >= 0 {
			p.Flags |= ioringSetupSQAff
			p.SQThreadCPU = uint32(e.cfg.SQPollCPU)
		}
	}
	// As fio sets its rings up: a CQ no larger than the SQ; completion
	// work run when the thread next enters the kernel rather than by
	// interrupting it (COOP_TASKRUN); and with one submitting thread,
	// completion work deferred until that thread reaps (SINGLE_ISSUER,
	// DEFER_TASKRUN), which on a CPU-bound 4k QD32 job halves the CPU per
	// I/O. The ring then starts disabled, so that its submitter is the
	// thread of the first Commit, not the one that set it up. Flags the
	// kernel lacks are dropped one at a time, as fio does.
	optional := []uint32{ioringSetupSingleIssuer | ioringSetupDeferTaskrun | ioringSetupRDisabled, ioringSetupCoopTaskrun, ioringSetupCQSize}
	if !e.cfg.OneThread || e.sqpoll || e.iopoll {
		optional = optional[1:]
	}
	for _, f := range optional {
		p.Flags |= f
	}
	if p.Flags&ioringSetupCQSize != 0 {
		p.CQEntries = uint32(e.depth)
	}
	var r uintptr
	var errno unix.Errno
	for {
		r, _, errno = unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(e.depth), uintptr(unsafe.Pointer(p)), 0)
		if errno != unix.EINVAL || len(optional) == 0 {
			break
		}
		p.Flags &^= optional[0]
		optional = optional[1:]
	}
	if errno != 0 {
		return setupErr(errno, p.Flags)
	}
	e.ringFd = int(r)
	e.enterFd = e.ringFd
	e.disabled = p.Flags&ioringSetupRDisabled != 0
	e.extArg = p.Features&ioringFeatExtArg != 0
	if p.Features&ioringFeatNoDrop == 0 {
		return fmt.Errorf("engines: io_uring: %w: kernel lacks IORING_FEAT_NODROP (Linux < 5.5)", ErrUnsupported)
	}

	sqSize := int(p.SQOff.Array) + int(p.SQEntries)*4
	cqSize := int(p.CQOff.Cqes) + int(p.CQEntries)*int(unsafe.Sizeof(uringCQE{}))
	single := p.Features&ioringFeatSingleMmap != 0
	if single {
		sqSize = max(sqSize, cqSize)
	}
	prot, flags := unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE
	var err error
	if e.sqRing, err = unix.Mmap(e.ringFd, ioringOffSQRing, sqSize, prot, flags); err != nil {
		return fmt.Errorf("engines: io_uring: mmap SQ ring (%d bytes): %w", sqSize, err)
	}
	if single {
		e.cqRing = e.sqRing
	} else if e.cqRing, err = unix.Mmap(e.ringFd, ioringOffCQRing, cqSize, prot, flags); err != nil {
		return fmt.Errorf("engines: io_uring: mmap CQ ring (%d bytes): %w", cqSize, err)
	}
	sqesSize := int(p.SQEntries) * int(unsafe.Sizeof(uringSQE{}))
	if e.sqesMem, err = unix.Mmap(e.ringFd, ioringOffSQEs, sqesSize, prot, flags); err != nil {
		return fmt.Errorf("engines: io_uring: mmap SQEs (%d bytes): %w", sqesSize, err)
	}

	u32 := func(ring []byte, off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&ring[off])) }
	e.sqHead = u32(e.sqRing, p.SQOff.Head)
	e.sqTail = u32(e.sqRing, p.SQOff.Tail)
	e.sqFlags = u32(e.sqRing, p.SQOff.Flags)
	e.sqMask = *u32(e.sqRing, p.SQOff.RingMask)
	e.sqEntries = *u32(e.sqRing, p.SQOff.RingEntries)
	e.cqHead = u32(e.cqRing, p.CQOff.Head)
	e.cqTail = u32(e.cqRing, p.CQOff.Tail)
	e.cqMask = *u32(e.cqRing, p.CQOff.RingMask)
	e.sqes = unsafe.Slice((*uringSQE)(unsafe.Pointer(&e.sqesMem[0])), p.SQEntries)
	e.cqes = unsafe.Slice((*uringCQE)(unsafe.Pointer(&e.cqRing[p.CQOff.Cqes])), p.CQEntries)
	// SQ slot i always holds SQE i, so the indirection array is written once.
	array := unsafe.Slice((*uint32)(unsafe.Pointer(&e.sqRing[p.SQOff.Array])), p.SQEntries)
	for i := range array {
		array[i] = uint32(i)
	}
	e.sqLocalTail = atomic.LoadUint32(e.sqTail)

	if e.fixedBufs {
		if err := e.registerBuffers(); err != nil {
			return err
		}
	} else if e.tryBufs {
		// Whatever stops the registration (RLIMIT_MEMLOCK without
		// CAP_IPC_LOCK, file-backed memory, too many or too large
		// buffers) leaves the job on plain reads and writes.
		e.fixedBufs = e.registerBuffers() == nil
	}
	if e.fixedFile {
		var fds []int32
		for _, fd := range e.fds.all() {
			fds = append(fds, int32(fd))
		}
		if _, errno := e.register(ioringRegisterFiles, unsafe.Pointer(&fds[0]), len(fds)); errno != 0 {
			return fmt.Errorf("engines: io_uring: register file: %w", errno)
		}
	}
	return nil
}

func setupErr(errno unix.Errno, flags uint32) error {
	switch errno {
	case unix.ENOSYS:
		return fmt.Errorf("engines: io_uring: setup: %w: %w: kernel without io_uring (Linux < 5.1 or CONFIG_IO_URING=n)", ErrUnsupported, errno)
	case unix.EPERM:
		disabled := kernelfs.Default().ProcPath("sys", "kernel", "io_uring_disabled")
		v, _ := kernelfs.ReadString(disabled)
		return fmt.Errorf("engines: io_uring: setup: %w: %w: io_uring is blocked here "+
			"(%s = %s; 1 allows only the io_uring_group, 2 disables it) "+
			"or by a seccomp profile (container runtimes block it by default)",
			ErrUnsupported, errno, disabled, v)
	case unix.EINVAL:
		return fmt.Errorf("engines: io_uring: setup with flags %#x: %w: a flag this kernel does not know", flags, errno)
	}
	return fmt.Errorf("engines: io_uring: setup: %w", errno)
}

func (e *uring) register(op uintptr, arg unsafe.Pointer, n int) (uintptr, unix.Errno) {
	for {
		r, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(e.ringFd), op, uintptr(arg), uintptr(n), 0, 0)
		if errno != unix.EINTR {
			return r, errno
		}
	}
}

func (e *uring) registerBuffers() error {
	bufs := e.cfg.Buffers
	if len(bufs) == 0 {
		return fmt.Errorf("engines: %w: io_uring FixedBufs needs Config.Buffers", ErrConfig)
	}
	iov := make([]unix.Iovec, len(bufs))
	total := 0
	for i, b := range bufs {
		if len(b) == 0 {
			return fmt.Errorf("engines: %w: io_uring FixedBufs: buffer %d is empty", ErrConfig, i)
		}
		iov[i].Base = unsafeData(b)
		iov[i].SetLen(len(b))
		total += len(b)
	}
	_, errno := e.register(ioringRegisterBuffers, unsafe.Pointer(&iov[0]), len(iov))
	if errno != 0 {
		return registerBuffersErr(errno, len(bufs), total)
	}
	e.nbufs = len(bufs)
	return nil
}

// registerBuffersErr explains why registration failed. The kernel pins
// registered buffers and charges them to RLIMIT_MEMLOCK unless the process has
// CAP_IPC_LOCK.
func registerBuffersErr(errno unix.Errno, n, total int) error {
	what := fmt.Sprintf("engines: io_uring: register %d buffers (%d bytes)", n, total)
	switch errno {
	case unix.ENOMEM, unix.EPERM:
		var rl unix.Rlimit
		limit := "unknown"
		if unix.Getrlimit(unix.RLIMIT_MEMLOCK, &rl) == nil {
			limit = fmt.Sprintf("%d bytes", rl.Cur)
			if rl.Cur == unix.RLIM_INFINITY {
				limit = "unlimited"
			}
		}
		return fmt.Errorf("%s: %w: %w: registered buffers are pinned and count against RLIMIT_MEMLOCK "+
			"(soft limit %s) unless the process has CAP_IPC_LOCK: raise it (ulimit -l, systemd LimitMEMLOCK=, "+
			"docker --ulimit memlock=-1), use fewer or smaller buffers, or turn off fixed buffers",
			what, ErrMemlock, errno, limit)
	case unix.EFAULT, unix.EOPNOTSUPP:
		return fmt.Errorf("%s: %w: buffers must be anonymous or huge-page memory (AllocBuffers), not file mappings", what, errno)
	case unix.EINVAL:
		return fmt.Errorf("%s: %w: at most 16384 buffers of at most 1 GiB each", what, errno)
	case unix.EBUSY:
		return fmt.Errorf("%s: %w: buffers already registered", what, errno)
	}
	return fmt.Errorf("%s: %w", what, errno)
}

func (e *uring) Name() string { return "io_uring" }

func (e *uring) fixedBuffers() bool { return e.fixedBufs }

func (e *uring) Flags() Flags { return FlagHasCommit }

func (e *uring) Queue(u *Unit) (Status, error) {
	if e.closed {
		return Busy, ErrClosed
	}
	var op uint8
	var opFlags uint32
	switch u.Op {
	case OpRead:
		op = ioringOpRead
	case OpWrite:
		op = ioringOpWrite
	case OpFsync:
		op = ioringOpFsync
	case OpFdatasync:
		op = ioringOpFsync
		opFlags = ioringFsyncDatasync
	case OpTrim:
		return e.trim.alone(u, e.toSubmit+e.submitted > 0), nil
	default:
		u.Res = -int64(unix.EINVAL)
		return Completed, nil
	}
	if e.fixedBufs && (u.Op == OpRead || u.Op == OpWrite) {
		if u.BufIndex >= 0 && u.BufIndex < e.nbufs {
			if u.Op == OpWrite {
				op = ioringOpWriteFixed
			} else {
				op = ioringOpReadFixed
			}
		} else if !e.tryBufs {
			return Busy, fmt.Errorf("engines: %w: io_uring fixed buffers: unit BufIndex %d outside the %d registered buffers", ErrConfig, u.BufIndex, e.nbufs)
		}
	}
	if len(e.free) == 0 || (e.sqLocalTail-atomic.LoadUint32(e.sqHead) >= e.sqEntries && !e.waitSQ()) {
		return Busy, nil
	}
	slot := e.free[len(e.free)-1]
	e.free = e.free[:len(e.free)-1]
	e.units[slot] = u

	sqe := &e.sqes[e.sqLocalTail&e.sqMask]
	*sqe = uringSQE{Opcode: op, Fd: int32(e.fds.of(u)), OpFlags: opFlags, UserData: uint64(slot), Ioprio: u.Prio}
	if e.fixedFile {
		sqe.Fd = u.File // index in the registered files
		sqe.Flags = iosqeFixedFile
	}
	if u.Op == OpRead || u.Op == OpWrite {
		sqe.Addr = uint64(bufAddr(u.Buf))
		sqe.Len = uint32(len(u.Buf))
		sqe.Off = uint64(u.Offset)
		if op == ioringOpReadFixed || op == ioringOpWriteFixed {
			sqe.BufIndex = uint16(u.BufIndex)
		}
	}
	e.sqLocalTail++
	e.toSubmit++
	return Queued, nil
}

// waitSQ waits for room in a full SQ ring when a unit slot is free: with
// SQPOLL the kernel thread posts completions before it moves the SQ head
// past their entries, so a caller that reaped them all may find the ring
// still full for a moment. It gives up after a millisecond (the thread
// was descheduled), and the caller sees Busy.
func (e *uring) waitSQ() bool {
	if !e.sqpoll {
		return false
	}
	var deadline time.Time
	for i := 0; ; i++ {
		if e.sqLocalTail-atomic.LoadUint32(e.sqHead) < e.sqEntries {
			return true
		}
		if i%64 == 63 {
			now := time.Now()
			if deadline.IsZero() {
				deadline = now.Add(time.Millisecond)
			} else if now.After(deadline) {
				return false
			}
			runtime.Gosched()
		}
	}
}

func (e *uring) enter(toSubmit, minComplete int, flags uint32, arg unsafe.Pointer, argSz uintptr) (int, unix.Errno) {
	r, _, errno := unix.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(e.enterFd), uintptr(toSubmit), uintptr(minComplete), uintptr(flags|e.enterFlags), uintptr(arg), argSz)
	if errno != 0 && e.enterFlags != 0 && (errno == unix.EBADF || errno == unix.EINVAL) {
		// Not the thread that registered the ring: enter by the
		// descriptor, so that the kernel says what is wrong (EEXIST
		// for a second submitter).
		r, _, errno = unix.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(e.ringFd), uintptr(toSubmit), uintptr(minComplete), uintptr(flags), uintptr(arg), argSz)
	}
	return int(r), errno
}

// registerRing registers the ring with the calling thread, the ring's one
// submitter (IORING_REGISTER_RING_FDS, Linux 5.18), so that io_uring_enter
// finds it by its slot. Without it each enter looks the descriptor up
// and, in a process of several threads as every Go program is, takes and
// drops a reference on the ring's file: about 2% of the CPU per I/O of a
// 4k read at QD32 on a loop device. fio's job process is single-threaded
// and pays no such reference. On a kernel without it the ring is entered
// by its descriptor as before.
//
// The registration belongs to the thread: Close drops it when called on
// that thread, and otherwise the kernel drops it when the thread exits.
func (e *uring) registerRing() {
	upd := uringRsrcUpdate{Offset: ^uint32(0), Data: uint64(e.ringFd)}
	if r, errno := e.register(ioringRegisterRingFds, unsafe.Pointer(&upd), 1); errno == 0 && r == 1 {
		e.enterFd, e.enterFlags, e.regTid = int(upd.Offset), ioringEnterRegisteredRing, unix.Gettid()
	}
}

// unregisterRing drops the thread's registration of the ring, when called
// on the thread that made it.
func (e *uring) unregisterRing() error {
	if e.enterFlags == 0 || unix.Gettid() != e.regTid {
		return nil
	}
	upd := uringRsrcUpdate{Offset: uint32(e.enterFd)}
	if _, errno := e.register(ioringUnregisterRingFds, unsafe.Pointer(&upd), 1); errno != 0 {
		return fmt.Errorf("engines: io_uring: unregister ring: %w", errno)
	}
	e.enterFd, e.enterFlags = e.ringFd, 0
	return nil
}

// Commit publishes the SQ tail and submits. With SQPOLL the kernel thread
// picks the entries up by itself; Commit enters the kernel only when the
// thread went to sleep (IORING_SQ_NEED_WAKEUP).
func (e *uring) Commit() error {
	if e.closed {
		return ErrClosed
	}
	if e.toSubmit == 0 {
		return nil
	}
	if e.disabled {
		// This thread becomes the ring's submitter.
		if _, errno := e.register(ioringRegisterEnableRings, nil, 0); errno != 0 {
			return fmt.Errorf("engines: io_uring: enable ring: %w", errno)
		}
		e.disabled = false
		e.registerRing()
	}
	// Store-release: the SQEs are written before the kernel can see the tail.
	// Go's atomics are sequentially consistent, which also orders the tail
	// store before the NEED_WAKEUP load below, as SQPOLL requires.
	atomic.StoreUint32(e.sqTail, e.sqLocalTail)
	if e.sqpoll {
		e.submitted += e.toSubmit
		e.toSubmit = 0
		if atomic.LoadUint32(e.sqFlags)&ioringSQNeedWakeup != 0 {
			for {
				_, errno := e.enter(0, 0, ioringEnterSQWakeup, nil, 0)
				if errno == 0 {
					break
				}
				if errno != unix.EINTR {
					return fmt.Errorf("engines: io_uring: wake SQ thread: %w", errno)
				}
			}
		}
		return nil
	}
	for e.toSubmit > 0 {
		// GETEVENTS with no minimum, as fio submits: completion work
		// deferred to this thread runs now, and GetEvents finds its
		// completions in the ring without entering the kernel.
		n, errno := e.enter(e.toSubmit, 0, ioringEnterGetEvents, nil, 0)
		switch errno {
		case 0:
			e.submitted += n
			e.toSubmit -= n
		case unix.EINTR:
		case unix.EAGAIN, unix.EBUSY:
			// Out of kernel resources or CQ overflow pending: wait for a
			// completion (it stays in the CQ for GetEvents), then retry.
			if e.submitted == 0 {
				return fmt.Errorf("engines: io_uring: submit %d with none in flight: %w", e.toSubmit, errno)
			}
			if _, errno := e.enter(0, 1, ioringEnterGetEvents, nil, 0); errno != 0 && errno != unix.EINTR {
				return fmt.Errorf("engines: io_uring: wait after %s: %w", unix.Errno(errno), errno)
			}
		default:
			return fmt.Errorf("engines: io_uring: submit %d: %w", e.toSubmit, errno)
		}
	}
	return nil
}

// reapCQ moves completions from the CQ ring into e.out[n:max].
func (e *uring) reapCQ(n, max int) int {
	head := atomic.LoadUint32(e.cqHead)
	tail := atomic.LoadUint32(e.cqTail) // load-acquire: CQEs before tail are complete
	start := n
	for head != tail && n < max {
		c := &e.cqes[head&e.cqMask]
		slot := c.UserData
		u := e.units[slot]
		e.units[slot] = nil
		e.free = append(e.free, int32(slot))
		u.Res = int64(c.Res)
		e.out[n] = u
		n++
		head++
	}
	atomic.StoreUint32(e.cqHead, head) // store-release: the kernel may reuse the CQEs
	e.submitted -= n - start
	return n
}

func (e *uring) GetEvents(min, max int, timeout time.Duration) (int, error) {
	if e.closed {
		return 0, ErrClosed
	}
	min, max = eventBounds(min, max, e.depth, e.submitted)
	n := e.reapCQ(0, max)
	if e.iopoll && n == 0 && min == 0 && e.submitted > 0 {
		// Polled completions are only found by entering the kernel.
		if _, errno := e.enter(0, 0, ioringEnterGetEvents, nil, 0); errno != 0 && errno != unix.EINTR {
			return n, fmt.Errorf("engines: io_uring: poll completions: %w", errno)
		}
		n = e.reapCQ(n, max)
	}
	var deadline time.Time // read only once a wait is needed
	for n < min {
		flags := uint32(ioringEnterGetEvents)
		var arg unsafe.Pointer
		var argSz uintptr
		if timeout > 0 && e.extArg {
			if deadline.IsZero() {
				deadline = time.Now().Add(timeout)
			}
			left := time.Until(deadline)
			if left <= 0 {
				break
			}
			e.ts = unix.NsecToTimespec(int64(left))
			e.arg = uringGetEventsArg{Ts: uint64(uintptr(unsafe.Pointer(&e.ts)))}
			arg, argSz = unsafe.Pointer(&e.arg), unsafe.Sizeof(e.arg)
			flags |= ioringEnterExtArg
		}
		_, errno := e.enter(0, min-n, flags, arg, argSz)
		switch errno {
		case 0, unix.EINTR, unix.EAGAIN, unix.EBUSY:
		case unix.ETIME:
			return e.reapCQ(n, max), nil
		default:
			return n, fmt.Errorf("engines: io_uring: wait for %d completions: %w", min-n, errno)
		}
		n = e.reapCQ(n, max)
	}
	return n, nil
}

func (e *uring) Event(i int) *Unit { return e.out[i] }

func (e *uring) Explain(u *Unit) error { return explain(u, e.expl) }

// Close unmaps the rings and closes the ring; the kernel then cancels or
// finishes I/O still in flight and drops the registrations. Config.File and
// the buffers stay the caller's.
func (e *uring) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	err := e.unregisterRing()
	if cerr := e.closeRing(); err == nil {
		err = cerr
	}
	return err
}

func (e *uring) closeRing() error {
	var first error
	unmap := func(m []byte) {
		if m == nil {
			return
		}
		if err := unix.Munmap(m); err != nil && first == nil {
			first = fmt.Errorf("engines: io_uring: unmap: %w", err)
		}
	}
	unmap(e.sqesMem)
	if e.cqRing != nil && (e.sqRing == nil || unsafe.SliceData(e.cqRing) != unsafe.SliceData(e.sqRing)) {
		unmap(e.cqRing)
	}
	unmap(e.sqRing)
	e.sqesMem, e.cqRing, e.sqRing, e.sqes, e.cqes = nil, nil, nil, nil, nil
	if e.ringFd >= 0 {
		if err := unix.Close(e.ringFd); err != nil && first == nil {
			first = fmt.Errorf("engines: io_uring: close ring: %w", err)
		}
		e.ringFd = -1
	}
	return first
}
