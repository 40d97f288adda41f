package stortest

import (
	"fmt"
	"os"

	"stortest.dev/target"
	"stortest.dev/workload"
)

// ErrUnsafe is wrapped by every refusal to write a block device. It is
// target.ErrUnsafe: the test API and the command line share one guard.
var ErrUnsafe = target.ErrUnsafe

// checkWrite applies the test API's rule to a job that writes or trims
// the block device at path: refused when the device or one of its
// partitions is mounted, held by another device or used as swap (unless
// the job sets AllowMountedWrite, fio's allow_mounted_write=1), and
// refused unless the device is listed in STORTEST_ALLOW_DESTRUCTIVE.
func checkWrite(path string, job workload.Job) error {
	if err := target.Live().CheckWrite(path, testRules(job)); err != nil {
		return fmt.Errorf("stortest: %w", err)
	}
	return nil
}

func testRules(job workload.Job) target.Rules {
	return target.Rules{
		AllowMountedWrite: job.AllowMountedWrite,
		ListVar:           EnvAllowDestructive,
		List:              os.Getenv(EnvAllowDestructive),
	}
}

// guardFiles applies the same rule, as workload's CheckFile, to every
// block device the job writes or trims as it runs: a read_iolog names
// its own file and its own directions, which the check of the target
// before the run does not see. The loop device stortest attached for
// this test (own, KindLoop) is scratch: it needs no listing in
// STORTEST_ALLOW_DESTRUCTIVE, only to be in no use, as the command line
// asks of any device. then, when set, is the caller's own CheckFile.
func guardFiles(own *Dev, then func(*workload.Job, string) error) func(*workload.Job, string) error {
	return func(job *workload.Job, file string) error {
		if job.RW.Modifies() && target.IsBlockDevice(file) {
			rules := testRules(*job)
			if own != nil && own.Kind == KindLoop && file == own.Path {
				rules = target.Rules{AllowMountedWrite: job.AllowMountedWrite}
			}
			if err := target.Live().CheckWrite(file, rules); err != nil {
				return fmt.Errorf("job %s: %w", job.Name, err)
			}
		}
		if then != nil {
			return then(job, file)
		}
		return nil
	}
}
