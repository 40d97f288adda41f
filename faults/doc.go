// Package faults serves a file that misbehaves where it is told to: its
// reads and writes fail with an errno, or stall, at chosen byte ranges. The
// file lives in a FUSE file system mounted in a temp directory
// (github.com/hanwen/go-fuse/v2), and a loop device over it (File.AttachLoop)
// carries the faults through the kernel's block layer, so every real engine
// meets them the way it meets a failing disk: a failed request is an EIO
// from pread, io_getevents, an io_uring completion or a SIGBUS in mmap, and
// a stalled one is latency.
//
//	f, err := faults.Serve(faults.FileOptions{Size: 64 << 20, Rules: faults.Rules{
//		{Range: engines.Range{Off: 1 << 20, Len: 4096}, Errno: syscall.EIO},
//		{Range: engines.Range{Off: 8 << 20, Len: 4096}, Stall: 2 * time.Second},
//	}})
//	defer f.Close() // detaches the loop device, unmounts, removes the directory
//	loop, err := f.AttachLoop(engines.LoopOptions{DirectIO: true})
//	// run a workload on loop.Path()
//
// Faults injected above the kernel, without root, are engines.WithFaults:
// errors, latency (fixed, spikes, heavy tails, stalls, also virtual) and
// short transfers, deterministic by seed.
//
// The file is served by the process that calls Serve. That process must
// not map the file or the loop device (the mmap engine) itself: a page
// fault on such a mapping blocks its thread inside the kernel, where Go's
// garbage collector cannot stop it, and a collection that starts meanwhile
// stops the server the fault is waiting for. Run memory-mapped I/O in
// another process; read(2)- and write(2)-style engines, libaio and
// io_uring are safe in-process.
//
// Serve needs root and /dev/fuse (it mounts with mount(2), not fusermount).
// Close releases stalled requests first, so a test that fails mid-stall
// still leaves no mount or loop device behind; only a process killed
// outright (SIGKILL) leaves its mount, disconnected, for umount -l.
package faults
