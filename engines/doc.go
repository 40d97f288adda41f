// Package engines performs I/O the way fio's ioengines do: null, sync, psync,
// pvsync2, libaio, io_uring, mmap, posixaio and net, behind one Engine interface,
// written directly over the Linux system calls (golang.org/x/sys/unix, no
// cgo).
//
// posixaio does what glibc's POSIX AIO does, user threads doing
// pread(2)/pwrite(2), with a pool of min(Depth, MaxPosixAIOThreads)
// goroutines: every unit in flight has a thread, so Depth is honoured.
// glibc itself serves one file descriptor's requests on one thread in turn,
// so fio's posixaio on one file moves little more at iodepth=16 than at 1
// (measured on a file with O_DIRECT: 7.9k against 5.3k reads/s, libaio 39k
// against 12k); stortest's is faster there, by design.
//
// # The engine model
//
// The runner owns I/O units (Unit) and drives an engine in fio's order, taking
// its timestamps at the same points fio does:
//
//	u.Start = now()                 // the unit is prepared
//	st, err := e.Queue(u)           // sync engines: take u.Issue just before
//	...                             // queue up to Config.Depth units
//	e.Commit()                      // async engines: take u.Issue after it
//	n, err := e.GetEvents(1, 0, 0)  // take one completion time for the batch
//	for i := range n { u := e.Event(i) ... }
//
// Queue returns Completed for synchronous engines (FlagSync), and for units an
// async engine finishes at once; Queued for units that wait for Commit; Busy
// when the engine is full (commit, reap, queue again). A failed I/O is not a Go
// error: the unit completes with Res = -errno, to be counted, and
// Engine.Explain says what went wrong (a misaligned O_DIRECT offset, polled I/O
// on a device without poll queues, RWF_NOWAIT, a write past the end).
// Go errors are for misuse and for failures of the engine itself.
//
// Queue, Commit, GetEvents and Event allocate nothing; per-I/O state lives in
// arrays sized by Config.Depth at New.
//
// # Memory
//
// AllocBuffers maps page-aligned buffers outside the Go heap: fit for O_DIRECT
// and for io_uring buffer registration, never moved or scanned by the garbage
// collector. The kernel holds a buffer's address while its unit is in flight,
// so units and buffers must outlive the I/O.
//
// # Targets
//
// OpenFile opens a target with or without O_DIRECT. LogicalBlockSize,
// PhysicalBlockSize and Size read a device's geometry (BLKSSZGET, BLKPBSZGET,
// BLKGETSIZE64) or a file's (statx direct-I/O alignment, statfs, stat), and
// CheckAlignment checks a unit against O_DIRECT's rules before a run.
// AttachLoop attaches a loop device over a file (LOOP_CONFIGURE, optionally
// with direct I/O and a block size) for tests that need a block device; it
// needs root.
//
// # Sockets
//
// net is fio's net engine: a job's blocks go over a TCP, UDP or unix
// socket (Config.Net) instead of a file, sent by a job that writes and
// received by one that reads, with fio's listen, pingpong, multicast and
// UDP link messages, so that fio and stortest can be each other's peer.
// It is an Opener: the runner reaches the peer (accept, connect) before
// the job's clock starts. A wait for the peer gives up when Config.Stop
// says the job is over, and the peer's close ends the job
// (ErrEndOfStream).
//
// # Faults
//
// WithFaults wraps any engine in one that injects what a misbehaving device
// does: errors (an errno at chosen byte ranges or at a rate), latency
// (fixed, spikes, a heavy Pareto tail, stalls at chosen ranges; real waits,
// or virtual ones that back-date the unit's timestamps) and short
// transfers, all deterministic by seed. ParseFaults reads the one-line
// form the command line takes (--faults). Faults that must travel the
// kernel's own error paths come from package faults: a FUSE-served file
// under a loop device.
//
// The package supports 64-bit Linux only.
package engines
