package engines

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

func TestUringFixedBufferIndex(t *testing.T) {
	path := tempFile(t, 1<<20)
	f := openT(t, path, true)
	bufs := allocBuffers(t, 2, 4096)
	e := newEngine(t, "io_uring", Config{File: f, Direct: true, Depth: 4, Buffers: bufs.All(), FixedBufs: true, RegisterFiles: true})

	u := Unit{Op: OpRead, Buf: bufs.Buf(0), BufIndex: 2}
	if _, err := e.Queue(&u); !errors.Is(err, ErrConfig) {
		t.Errorf("Queue with BufIndex 2 of 2 buffers = %v, want ErrConfig", err)
	}
	// A valid index that does not hold the buffer: the kernel refuses the
	// address range, as a per-I/O result.
	u = Unit{Op: OpRead, Buf: bufs.Buf(0), BufIndex: 1, Res: -999}
	if _, err := drive(e, []*Unit{&u}); err != nil {
		t.Fatal(err)
	}
	if u.Res != -int64(unix.EFAULT) {
		t.Errorf("read into buffer 0 registered as 1: Res = %d, want -EFAULT", u.Res)
	}
	if _, err := New("io_uring", Config{File: f, FixedBufs: true}); !errors.Is(err, ErrConfig) {
		t.Errorf("FixedBufs without Buffers: %v, want ErrConfig", err)
	}
}

// TestUringBadSQE makes the kernel reject one SQE of a batch: the rejection
// arrives as that unit's result and the others complete.
func TestUringBadSQE(t *testing.T) {
	e, units := queuedBatch(t, "io_uring")
	r := e.(*uring)
	r.sqes[(r.sqLocalTail-2)&r.sqMask].Opcode = 255 // not an opcode
	if err := e.Commit(); err != nil {
		t.Fatal(err)
	}
	got := 0
	for got < 4 {
		n, err := e.GetEvents(1, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		got += n
	}
	for i, u := range units {
		want := int64(4096)
		if i == 2 {
			want = -int64(unix.EINVAL)
		}
		if u.Res != want {
			t.Errorf("unit %d: Res = %d, want %d", i, u.Res, want)
		}
	}
}

// TestUringSQPoll lets the SQ thread go idle, checks that the kernel asks for
// a wakeup, and that Commit's wakeup gets the next I/O done.
func TestUringSQPoll(t *testing.T) {
	path := tempFile(t, 1<<20)
	f := openT(t, path, false)
	bufs := allocBuffers(t, 1, 4096)
	e := newEngine(t, "io_uring", Config{File: f, Depth: 2, SQPoll: true, SQPollIdle: 5 * time.Millisecond})
	u := Unit{Op: OpRead, Buf: bufs.Buf(0), BufIndex: -1}
	for round := range 2 {
		r := e.(*uring)
		deadline := time.Now().Add(2 * time.Second)
		for atomic.LoadUint32(r.sqFlags)&ioringSQNeedWakeup == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: SQ thread never went idle (no IORING_SQ_NEED_WAKEUP after 2 s)", round)
			}
			time.Sleep(time.Millisecond)
		}
		u.Res = -999
		if _, err := drive(e, []*Unit{&u}); err != nil || u.Res != 4096 {
			t.Fatalf("round %d: Res = %d, err = %v; want 4096, nil", round, u.Res, err)
		}
	}
}

func TestUringIOPoll(t *testing.T) {
	t.Run("buffered", func(t *testing.T) {
		f := openT(t, tempFile(t, 1<<20), false)
		_, err := New("io_uring", Config{File: f, HiPri: true})
		if !errors.Is(err, ErrIOPollUnsupported) || !strings.Contains(err.Error(), "needs O_DIRECT") {
			t.Errorf("IOPOLL without O_DIRECT: %v, want ErrIOPollUnsupported saying it needs O_DIRECT", err)
		}
	})
	t.Run("loop-precheck", func(t *testing.T) {
		l := attachLoop(t, 1<<20, LoopOptions{DirectIO: true})
		f := openT(t, l.Path(), true)
		_, err := New("io_uring", Config{File: f, Direct: true, HiPri: true})
		if !errors.Is(err, ErrIOPollUnsupported) || !strings.Contains(err.Error(), "queue/io_poll = 0") {
			t.Errorf("IOPOLL on %s: %v, want ErrIOPollUnsupported naming queue/io_poll", l.Path(), err)
		}
	})
	// Without the precheck the kernel answers every I/O with EOPNOTSUPP, which
	// Explain explains: this is what the precheck saves a run from.
	t.Run("loop-kernel", func(t *testing.T) {
		l := attachLoop(t, 1<<20, LoopOptions{DirectIO: true})
		f := openT(t, l.Path(), true)
		iopollPrecheck = false
		t.Cleanup(func() { iopollPrecheck = true })
		bufs := allocBuffers(t, 1, 4096)
		e := newEngine(t, "io_uring", Config{File: f, Direct: true, HiPri: true})
		u := Unit{Op: OpRead, Buf: bufs.Buf(0), BufIndex: -1}
		if _, err := drive(e, []*Unit{&u}); err != nil {
			t.Fatal(err)
		}
		if u.Res != -int64(unix.EOPNOTSUPP) {
			t.Fatalf("IOPOLL read on a loop device: Res = %d, want -EOPNOTSUPP", u.Res)
		}
		if err := e.Explain(&u); !errors.Is(err, ErrIOPollUnsupported) || !strings.Contains(err.Error(), "loop devices") {
			t.Errorf("Explain = %v, want ErrIOPollUnsupported mentioning loop devices", err)
		}
	})
}

// TestUringTimeout waits on a read from an empty pipe, which completes only
// when the pipe is written: GetEvents must give up after its timeout.
func TestUringTimeout(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	e := newEngine(t, "io_uring", Config{File: r, Depth: 2})
	buf := make([]byte, 16)
	u := Unit{Op: OpRead, Offset: -1, Buf: buf, BufIndex: -1} // offset -1: the pipe's current position
	if _, err := e.Queue(&u); err != nil {
		t.Fatal(err)
	}
	if err := e.Commit(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	n, err := e.GetEvents(1, 0, 30*time.Millisecond)
	if took := time.Since(start); n != 0 || err != nil || took < 30*time.Millisecond {
		t.Fatalf("GetEvents on an idle pipe = %d, %v after %v; want 0, nil after >= 30ms", n, err, took)
	}
	if _, err := w.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	n, err = e.GetEvents(1, 0, 5*time.Second)
	if n != 1 || err != nil || e.Event(0) != &u || u.Res != 5 || string(buf[:5]) != "hello" {
		t.Fatalf("after write: GetEvents = %d, %v; Res = %d, data %q", n, err, u.Res, buf[:5])
	}
}

func TestRegisterBuffersErr(t *testing.T) {
	for _, errno := range []unix.Errno{unix.ENOMEM, unix.EPERM} {
		err := registerBuffersErr(errno, 4, 1<<20)
		if !errors.Is(err, ErrMemlock) || !errors.Is(err, errno) {
			t.Errorf("%v: %v, want ErrMemlock and the errno", errno, err)
		}
		for _, s := range []string{"RLIMIT_MEMLOCK", "CAP_IPC_LOCK", "ulimit -l", "4 buffers (1048576 bytes)"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%v: %q lacks %q", errno, err, s)
			}
		}
	}
	if err := registerBuffersErr(unix.EFAULT, 1, 1); errors.Is(err, ErrMemlock) || !strings.Contains(err.Error(), "anonymous") {
		t.Errorf("EFAULT: %v", err)
	}
}

// TestUringMemlock registers more buffer memory than RLIMIT_MEMLOCK allows,
// on a thread without CAP_IPC_LOCK, and checks that New explains the limit.
func TestUringMemlock(t *testing.T) {
	rl, n := memlockExceeded(t)
	f := openT(t, tempFile(t, 1<<20), false)
	err := withoutIPCLock(func() error {
		bufs, err := AllocBuffers(n, 1<<20)
		if err != nil {
			return err
		}
		defer bufs.Free()
		e, err := New("io_uring", Config{File: f, FixedBufs: true, Buffers: bufs.All()})
		if err == nil {
			e.Close()
		}
		return err
	})
	if !errors.Is(err, ErrMemlock) {
		t.Fatalf("registering %d MiB with RLIMIT_MEMLOCK %d bytes: %v, want ErrMemlock", n, rl.Cur, err)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("soft limit %d bytes", rl.Cur)) {
		t.Errorf("%q does not name the limit %d", err, rl.Cur)
	}
	t.Log(err)
}

// memlockExceeded returns RLIMIT_MEMLOCK and a count of 1 MiB buffers
// that exceeds it, or skips when the limit is too large to exceed.
func memlockExceeded(t *testing.T) (unix.Rlimit, int) {
	t.Helper()
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_MEMLOCK, &rl); err != nil {
		t.Fatal(err)
	}
	if rl.Cur == unix.RLIM_INFINITY || rl.Cur > 256<<20 {
		t.Skipf("RLIMIT_MEMLOCK is %d: too large to exceed in a test", rl.Cur)
	}
	return rl, int(rl.Cur)/(1<<20) + 2
}

// withoutIPCLock runs fn on a thread of its own without CAP_IPC_LOCK, where
// RLIMIT_MEMLOCK bounds registered buffers. Capabilities are per thread,
// and the thread is thrown away afterwards.
func withoutIPCLock(fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		// Never unlocked: the thread exits with this goroutine, so the
		// capability drop below cannot leak to other goroutines.
		runtime.LockOSThread()
		hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var data [2]unix.CapUserData
		if err := unix.Capget(&hdr, &data[0]); err != nil {
			errc <- err
			return
		}
		data[0].Effective &^= 1 << unix.CAP_IPC_LOCK
		if err := unix.Capset(&hdr, &data[0]); err != nil {
			errc <- err
			return
		}
		errc <- fn()
	}()
	return <-errc
}

// userBufs is the number of buffers registered with the ring ringFd, as
// the kernel lists them in the ring's fdinfo.
func userBufs(t *testing.T, ringFd int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", ringFd))
	if err != nil {
		t.Fatal(err)
	}
	for l := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(l, "UserBufs:"); ok {
			var n int
			if _, err := fmt.Sscan(v, &n); err != nil {
				t.Fatalf("fdinfo line %q: %v", l, err)
			}
			return n
		}
	}
	t.Fatalf("ring fdinfo has no UserBufs line:\n%s", b)
	return 0
}

// readOp queues a read of unit u, drives it to completion, and returns
// the opcode of its SQE.
func readOp(e Engine, u *Unit) (uint8, error) {
	if st, err := e.Queue(u); err != nil || st != Queued {
		return 0, fmt.Errorf("Queue = %v, %v", st, err)
	}
	r := e.(*uring)
	op := r.sqes[(r.sqLocalTail-1)&r.sqMask].Opcode
	if err := e.Commit(); err != nil {
		return op, err
	}
	for n := 0; n == 0; {
		var err error
		if n, err = e.GetEvents(1, 0, 0); err != nil {
			return op, err
		}
	}
	if u.Res != int64(len(u.Buf)) {
		return op, fmt.Errorf("read of %d bytes: Res = %d", len(u.Buf), u.Res)
	}
	return op, nil
}

// TestUringTryFixedBufs: with TryFixedBufs the buffers are registered
// where the kernel allows (the ring's fdinfo lists them, and reads into
// them go as READ_FIXED; a unit outside them goes as a plain read), and
// where it does not (more than RLIMIT_MEMLOCK without CAP_IPC_LOCK) the
// engine is set up all the same, with plain reads.
func TestUringTryFixedBufs(t *testing.T) {
	f := openT(t, tempFile(t, 1<<20), false)
	bufs := allocBuffers(t, 4, 4096)
	e := newEngine(t, "io_uring", Config{File: f, Depth: 4, Buffers: bufs.All(), TryFixedBufs: true})
	if n := userBufs(t, e.(*uring).ringFd); n != 4 {
		t.Errorf("ring has %d registered buffers, want 4", n)
	}
	if !FixedBuffers(e) {
		t.Error("FixedBuffers = false with the buffers registered")
	}
	if fe, err := WithFaults(e, 4, Faults{}); err != nil || !FixedBuffers(fe) {
		t.Errorf("FixedBuffers through WithFaults = false (%v)", err)
	}
	if op, err := readOp(e, &Unit{Op: OpRead, Buf: bufs.Buf(1), BufIndex: 1, Offset: 4096}); err != nil || op != ioringOpReadFixed {
		t.Errorf("read into registered buffer 1: opcode %d (%v), want READ_FIXED (%d)", op, err, ioringOpReadFixed)
	}
	if op, err := readOp(e, &Unit{Op: OpRead, Buf: make([]byte, 512), BufIndex: -1}); err != nil || op != ioringOpRead {
		t.Errorf("read into an unregistered buffer: opcode %d (%v), want READ (%d)", op, err, ioringOpRead)
	}

	_, n := memlockExceeded(t)
	err := withoutIPCLock(func() error {
		big, err := AllocBuffers(n, 1<<20)
		if err != nil {
			return err
		}
		defer big.Free()
		e, err := New("io_uring", Config{File: f, Depth: 4, Buffers: big.All(), TryFixedBufs: true})
		if err != nil {
			return fmt.Errorf("New with %d MiB of buffers over RLIMIT_MEMLOCK: %w", n, err)
		}
		defer e.Close()
		if e.(*uring).nbufs != 0 || FixedBuffers(e) {
			return fmt.Errorf("%d buffers registered over RLIMIT_MEMLOCK (FixedBuffers %v), want none", e.(*uring).nbufs, FixedBuffers(e))
		}
		if op, err := readOp(e, &Unit{Op: OpRead, Buf: big.Buf(0)[:4096], BufIndex: 0}); err != nil || op != ioringOpRead {
			return fmt.Errorf("read with the buffers unregistered: opcode %d (%v), want READ (%d)", op, err, ioringOpRead)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

// TestUringOneThread: with OneThread the ring is set up as fio's (single
// issuer, deferred completion work, CQ sized to the depth) and belongs to
// the thread of the first Commit, even when another thread set it up;
// another thread's submit fails with EEXIST.
func TestUringOneThread(t *testing.T) {
	path := tempFile(t, 1<<20)
	f := openT(t, path, false)
	bufs := allocBuffers(t, 8, 4096)
	e := newEngine(t, "io_uring", Config{File: f, Depth: 8, OneThread: true})
	want := uint32(ioringSetupSingleIssuer | ioringSetupDeferTaskrun | ioringSetupCoopTaskrun | ioringSetupCQSize)
	if got := e.(*uring).p.Flags; got&want != want {
		t.Fatalf("setup flags %#x, want %#x among them", got, want)
	}
	on := func(f func() error) error {
		ch := make(chan error)
		go func() {
			runtime.LockOSThread() // this goroutine's thread exits with it
			ch <- f()
		}()
		return <-ch
	}
	units := make([]*Unit, 64)
	for i := range units {
		units[i] = &Unit{Op: OpRead, Offset: int64(i%256) * 4096, Buf: bufs.Buf(i % 8), BufIndex: -1, Res: -999}
	}
	if err := on(func() error { _, err := drive(e, units); return err }); err != nil {
		t.Fatalf("reads from one thread: %v", err)
	}
	for i, u := range units {
		if u.Res != 4096 {
			t.Fatalf("unit %d: Res = %d, want 4096", i, u.Res)
		}
	}
	err := on(func() error {
		u := Unit{Op: OpRead, Buf: bufs.Buf(0), BufIndex: -1}
		if _, err := e.Queue(&u); err != nil {
			return err
		}
		return e.Commit()
	})
	if !errors.Is(err, unix.EEXIST) {
		t.Errorf("submit from another thread: %v, want EEXIST", err)
	}
}

// TestUringRegistersRing: with OneThread the ring is registered with the
// thread of the first Commit and entered by its slot, and Close on that
// thread drops the registration (the kernel holds a reference on the
// ring until then). A second thread's submit still fails with EEXIST.
func TestUringRegistersRing(t *testing.T) {
	path := tempFile(t, 1<<20)
	f := openT(t, path, false)
	bufs := allocBuffers(t, 8, 4096)
	e := newEngine(t, "io_uring", Config{File: f, Depth: 8, OneThread: true})
	u := e.(*uring)
	other := newEngine(t, "io_uring", Config{File: f, Depth: 1}).(*uring) // a ring to call io_uring_register on
	done := make(chan error)
	var held error // why the slot could not be reused after Close
	go func() {
		runtime.LockOSThread() // this goroutine's thread exits with it
		units := make([]*Unit, 32)
		for i := range units {
			units[i] = &Unit{Op: OpRead, Offset: int64(i) * 4096, Buf: bufs.Buf(i % 8), BufIndex: -1, Res: -999}
		}
		if _, err := drive(e, units); err != nil {
			done <- err
			return
		}
		for i, un := range units {
			if un.Res != 4096 {
				done <- fmt.Errorf("unit %d: Res = %d, want 4096", i, un.Res)
				return
			}
		}
		if u.enterFlags != ioringEnterRegisteredRing || u.enterFd == u.ringFd {
			done <- fmt.Errorf("ring entered by descriptor %d, flags %#x: not registered", u.enterFd, u.enterFlags)
			return
		}
		slot := u.enterFd
		if err := e.Close(); err != nil {
			done <- err
			return
		}
		// The slot is free again: another ring can be registered in it
		// (EBUSY while the closed ring still holds it).
		upd := uringRsrcUpdate{Offset: uint32(slot), Data: uint64(other.ringFd)}
		if _, errno := other.register(ioringRegisterRingFds, unsafe.Pointer(&upd), 1); errno != 0 {
			held = errno
		}
		done <- nil
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if held != nil {
		t.Errorf("after Close on the registering thread its slot is still taken: %v", held)
	}
}
