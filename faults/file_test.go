package faults_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"stortest.dev/engines"
	"stortest.dev/faults"
	"stortest.dev/internal/testenv"
	"stortest.dev/workload"
	"stortest.dev/workload/runner"
)

// needFUSE skips a test that needs root, /dev/fuse and loop devices, or
// fails it when STORTEST_REQUIRE_DEVICE=1 (CI), where skipping would hide
// it.
func needFUSE(t *testing.T) {
	t.Helper()
	testenv.RequireDevices(t, "fuse", "loop-control")
}

// serve mounts a faulty file and a loop device over it (direct I/O),
// removed in t.Cleanup, where the test also checks nothing is left.
func serve(t *testing.T, o faults.FileOptions) (*faults.File, *engines.Loop) {
	t.Helper()
	needFUSE(t)
	o.Dir = t.TempDir()
	f, l, err := faults.ServeLoop(o, engines.LoopOptions{DirectIO: true})
	require.NoError(t, err)
	t.Cleanup(func() {
		assert.NoError(t, f.Close())
		assert.False(t, l.Bound(), "%s still bound", l.Path())
		assert.False(t, f.Mounted(), "%s still mounted", f.Mountpoint())
		_, err := os.Stat(f.Mountpoint())
		assert.True(t, errors.Is(err, os.ErrNotExist), "mount point left: %v", err)
	})
	return f, l
}

var engineNames = []string{"sync", "psync", "pvsync2", "libaio", "io_uring", "mmap"}

func job(name, engine, path string, rw workload.RW) workload.Job {
	j := workload.Job{Name: name, Filename: path, Engine: engine, RW: rw, BlockSize: 4096, Size: 2 << 20,
		Direct: engine != "mmap", ContinueOnError: workload.ContinueIO}
	if engine == "libaio" || engine == "io_uring" {
		j.IODepth = 8
	}
	return j
}

// runDeadline bounds every fault test's workload: the longest stall the
// tests inject is 1 s, and a loaded 2-CPU machine runs these 2 MiB jobs
// in well under a second each.
const runDeadline = time.Minute

func run(t *testing.T, j workload.Job) *workload.JobResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runDeadline)
	defer cancel()
	res, err := runner.Run(ctx, j, workload.Options{})
	require.NoError(t, err)
	require.NoError(t, ctx.Err(), "the workload ran past its deadline")
	return res.Jobs[0]
}

// An EIO at a chosen offset reaches every engine through the kernel's
// error path (FUSE, the loop driver, the block layer): it is counted per
// direction and errno, reported with its offset, and the run continues.
func TestEIOReachesEveryEngine(t *testing.T) {
	const badRead, badWrite = 100 * 4096, 300 * 4096
	f, l := serve(t, faults.FileOptions{Size: 8 << 20, Rules: faults.Rules{
		{Range: engines.Range{Off: badRead, Len: 4096}, Ops: engines.OpsOf(engines.OpRead), Errno: syscall.EIO},
		{Range: engines.Range{Off: badWrite, Len: 4096}, Ops: engines.OpsOf(engines.OpWrite), Errno: syscall.EIO},
	}})
	for _, engine := range engineNames {
		t.Run(engine+"/read", func(t *testing.T) {
			j := job("r", engine, l.Path(), workload.Read)
			r := run(t, j)
			require.NoError(t, r.Err)
			assert.Equal(t, uint64(512), r.Dirs[workload.DirRead].IOs, "the run continued to the end")
			errs := r.Dirs[workload.DirRead].Errors
			if engine == "mmap" {
				assert.GreaterOrEqual(t, errs, uint64(1), "a fault paging in the bad block")
			} else {
				assert.Equal(t, uint64(1), errs)
			}
			assert.Equal(t, map[int]uint64{int(unix.EIO): errs}, r.ErrnoCounts)
			require.NotEmpty(t, r.FirstErrors)
			e := r.FirstErrors[0]
			assert.Equal(t, "read", e.Op)
			assert.Equal(t, int(unix.EIO), e.Errno)
			if engine == "mmap" {
				// Readahead may fail a neighbour first; the bad block is among them.
				var offs []int64
				for _, e := range r.FirstErrors {
					offs = append(offs, e.Offset)
				}
				assert.Contains(t, offs, int64(badRead))
			} else {
				assert.Equal(t, int64(badRead), e.Offset)
				assert.Equal(t, uint64(511*4096), r.Dirs[workload.DirRead].Bytes)
			}
		})
		if engine == "mmap" {
			continue // a write to a mapping fails only at writeback (msync), not at the copy
		}
		t.Run(engine+"/write", func(t *testing.T) {
			r := run(t, job("w", engine, l.Path(), workload.Write))
			require.NoError(t, r.Err)
			assert.Equal(t, uint64(512), r.Dirs[workload.DirWrite].IOs)
			assert.Equal(t, uint64(1), r.Dirs[workload.DirWrite].Errors)
			assert.Zero(t, r.Dirs[workload.DirRead].Errors)
			require.Len(t, r.FirstErrors, 1)
			assert.Equal(t, workload.IOError{Op: "write", Offset: badWrite, Len: 4096, Errno: int(unix.EIO), Err: r.FirstErrors[0].Err},
				r.FirstErrors[0])
		})
	}
	// Without continue_on_error the first failure ends the job and is its error.
	j := job("stop", "io_uring", l.Path(), workload.Read)
	j.ContinueOnError = workload.ContinueNone
	r := run(t, j)
	var ioe workload.IOError
	require.ErrorAs(t, r.Err, &ioe)
	assert.Equal(t, int64(badRead), ioe.Offset)
	assert.Less(t, r.Dirs[workload.DirRead].IOs, uint64(512))
	assert.Positive(t, f.Stats().Errors)
}

// A stalled request is latency: the one I/O that met the stall reports
// it, the others do not wait for it.
func TestStallIsLatency(t *testing.T) {
	const stall = time.Second
	_, l := serve(t, faults.FileOptions{Size: 4 << 20, Rules: faults.Rules{
		{Range: engines.Range{Off: 64 * 4096, Len: 4096}, Ops: engines.OpsOf(engines.OpRead), Stall: stall},
	}})
	for _, engine := range []string{"psync", "io_uring"} {
		t.Run(engine, func(t *testing.T) {
			j := job("stall", engine, l.Path(), workload.RandRead)
			j.Size = 1 << 20
			start := time.Now()
			r := run(t, j)
			require.NoError(t, r.Err)
			assert.Less(t, time.Since(start), 10*time.Second)
			clat := r.Dirs[workload.DirRead].Clat
			assert.GreaterOrEqual(t, clat.Max(), uint64(stall))
			assert.Less(t, clat.Max(), uint64(stall+500*time.Millisecond))
			slow := uint64(0)
			for i := clat.Layout().Index(uint64(stall / 2)); i < clat.Layout().Buckets(); i++ {
				slow += clat.Bucket(i)
			}
			assert.Equal(t, uint64(1), slow, "one I/O met the stall")
			assert.Equal(t, uint64(256), r.Dirs[workload.DirRead].IOs)
		})
	}
}

// Close ends a stall in progress, detaches the loop device and unmounts,
// even while an I/O is stuck in the stall: a test that fails there leaves
// nothing behind.
func TestCloseReleasesStalls(t *testing.T) {
	needFUSE(t)
	f, err := faults.Serve(faults.FileOptions{Dir: t.TempDir(), Size: 1 << 20, Rules: faults.Rules{
		{Range: engines.Range{Off: 0, Len: 4096}, Stall: time.Hour},
	}})
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	l, err := f.AttachLoop(engines.LoopOptions{DirectIO: true})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		d, err := engines.OpenFile(l.Path(), false, true)
		if err != nil {
			done <- err
			return
		}
		defer d.Close()
		bufs, err := engines.AllocBuffers(1, 4096)
		if err != nil {
			done <- err
			return
		}
		defer bufs.Free()
		_, err = d.ReadAt(bufs.Buf(0), 0)
		done <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for f.Stats().Stalls == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	require.Equal(t, uint64(1), f.Stats().Stalls, "the read is stalled")
	start := time.Now()
	require.NoError(t, f.Close())
	assert.Less(t, time.Since(start), 10*time.Second)
	select {
	case err := <-done:
		assert.NoError(t, err, "the stalled read is answered")
	case <-time.After(10 * time.Second):
		t.Fatal("the stalled read never returned")
	}
	assert.False(t, l.Bound())
	assert.False(t, f.Mounted())
	_, err = os.Stat(f.Mountpoint())
	assert.True(t, errors.Is(err, os.ErrNotExist))
	_, err = f.AttachLoop(engines.LoopOptions{})
	assert.Error(t, err, "a closed file attaches nothing")
}

// A backing file is read and written through; SetRules changes the faults
// of a running file.
func TestBackingFileAndSetRules(t *testing.T) {
	needFUSE(t)
	dir := t.TempDir()
	back := filepath.Join(dir, "backing.img")
	require.NoError(t, os.WriteFile(back, bytes.Repeat([]byte{7}, 1<<20), 0o600))
	f, l := serve(t, faults.FileOptions{Backing: back})
	assert.Equal(t, int64(1<<20), f.Size())
	d, err := engines.OpenFile(l.Path(), true, false)
	require.NoError(t, err)
	defer d.Close()
	_, err = d.WriteAt(bytes.Repeat([]byte{9}, 4096), 8192)
	require.NoError(t, err)
	require.NoError(t, d.Sync())
	got, err := os.ReadFile(back)
	require.NoError(t, err)
	assert.Equal(t, bytes.Repeat([]byte{9}, 4096), got[8192:12288])
	assert.Equal(t, byte(7), got[12288])

	require.NoError(t, f.SetRules(faults.Rules{{Range: engines.Range{Off: 0, Len: 1 << 20}, Ops: engines.OpsOf(engines.OpFsync), Errno: syscall.EIO}}))
	_, err = d.WriteAt([]byte{1}, 0)
	require.NoError(t, err)
	assert.ErrorIs(t, d.Sync(), syscall.EIO, "fsync fails through the loop device's flush")
	require.NoError(t, f.SetRules(nil))
}

func TestServeErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    faults.FileOptions
	}{
		{"no size", faults.FileOptions{}},
		{"bad range", faults.FileOptions{Size: 1 << 20, Rules: faults.Rules{{Range: engines.Range{Off: 0, Len: 0}}}}},
		{"negative stall", faults.FileOptions{Size: 1 << 20, Rules: faults.Rules{{Range: engines.Range{Len: 1}, Stall: -1}}}},
		{"backing is a directory", faults.FileOptions{Backing: t.TempDir()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := faults.Serve(tc.o)
			assert.ErrorIs(t, err, faults.ErrConfig)
		})
	}
	_, err := faults.Serve(faults.FileOptions{Backing: filepath.Join(t.TempDir(), "missing")})
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// Garbage collections while the runner's I/O waits in a stall do not
// stop the run: the server runs in its own process. Served by this
// process, the first collection would wait forever: the runner's thread,
// blocked in a raw pread or io_getevents on the loop device, counts as
// running, and stopping the world waits for it while the world it stops
// holds the server that would answer it.
func TestGCDuringStalledIO(t *testing.T) {
	const stall = 200 * time.Millisecond
	_, l := serve(t, faults.FileOptions{Size: 1 << 20, Rules: faults.Rules{
		{Range: engines.Range{Off: 64 * 4096, Len: 4096}, Ops: engines.OpsOf(engines.OpRead), Stall: stall},
	}})
	for _, engine := range []string{"psync", "libaio", "io_uring", "mmap"} {
		t.Run(engine, func(t *testing.T) {
			stop := make(chan struct{})
			gcs := make(chan int)
			go func() {
				n := 0
				defer func() { gcs <- n }()
				for {
					select {
					case <-stop:
						return
					case <-time.After(time.Millisecond):
						runtime.GC()
						n++
					}
				}
			}()
			j := job("gc", engine, l.Path(), workload.Read)
			j.Size = 1 << 20
			r := run(t, j)
			close(stop)
			n := <-gcs
			require.NoError(t, r.Err)
			assert.Equal(t, uint64(256), r.Dirs[workload.DirRead].IOs)
			// Half: mmap's readahead may meet the stall on an earlier
			// page's fault and the bad page's access waits for the rest.
			assert.GreaterOrEqual(t, r.Dirs[workload.DirRead].Clat.Max(), uint64(stall/2), "an I/O met the stall")
			assert.Positive(t, n, "collections ran during the run")
		})
	}
}

// A process that dies without Close, even by SIGKILL, leaves no mount and
// no loop device: its server sees its stdin end and unmounts, and the
// loop device detaches itself as the dead process's descriptors close.
func TestServerOutlivesNoParent(t *testing.T) {
	needFUSE(t)
	if os.Getenv(orphanEnv) != "" {
		return // the child's work is in TestMain
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), orphanEnv+"="+t.TempDir())
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	killed := false
	t.Cleanup(func() {
		if !killed {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	var mnt, loop string
	_, err = fmt.Fscan(out, &mnt, &loop)
	require.NoError(t, err, "the child's mount and loop device")
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	cmd.Wait()
	killed = true
	// The loop device detaches at once; the server needs a moment to
	// notice and unmount.
	var mounted, bound bool
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		mounted, bound = isMounted(mnt), loopBound(loop)
		if !mounted && !bound {
			break
		}
	}
	assert.False(t, mounted, "%s still mounted", mnt)
	assert.False(t, bound, "%s still bound", loop)
	var gone bool
	for deadline := time.Now().Add(5 * time.Second); !gone && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		_, err := os.Stat(mnt)
		gone = errors.Is(err, os.ErrNotExist)
	}
	assert.True(t, gone, "mount point %s left", mnt)
	if mounted {
		syscall.Unmount(mnt, syscall.MNT_DETACH)
	}
	if bound {
		exec.Command("losetup", "-d", loop).Run()
	}
}

// orphanEnv makes this test binary, run by TestServerOutlivesNoParent,
// serve a file under the directory it names, attach a loop device over
// it, print both and wait to be killed.
const orphanEnv = "STORTEST_FAULTS_ORPHAN_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(orphanEnv); dir != "" {
		f, l, err := faults.ServeLoop(faults.FileOptions{Dir: dir, Size: 1 << 20}, engines.LoopOptions{DirectIO: true})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(f.Mountpoint(), l.Path())
		time.Sleep(time.Minute)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func isMounted(mnt string) bool {
	b, _ := os.ReadFile("/proc/self/mountinfo")
	for _, line := range strings.Split(string(b), "\n") {
		if fields := strings.Fields(line); len(fields) > 4 && fields[4] == mnt {
			return true
		}
	}
	return false
}

func loopBound(dev string) bool {
	_, err := os.Stat("/sys/block/" + filepath.Base(dev) + "/loop/backing_file")
	return err == nil
}
