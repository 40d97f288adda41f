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
// The file is served by a child process: the program that calls Serve,
// executed again, which this package's init turns into the server. The
// process that runs the I/O must not serve it: the engines' raw system
// calls and page faults on a mapping hold their threads where the Go
// runtime cannot stop them, and a garbage collection would wait for them
// while holding the server that would answer them. Every engine, mmap
// included, is safe in the process that calls Serve.
//
// Serve needs root and /dev/fuse (it mounts with mount(2), not fusermount).
// Close releases stalled requests first, so a test that fails mid-stall
// still leaves no mount or loop device behind. A process killed outright
// (SIGKILL) leaves nothing either: its server sees it gone and unmounts,
// and loop devices from File.AttachLoop detach themselves.
package faults
