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
	err := target.Live().CheckWrite(path, target.Rules{
		AllowMountedWrite: job.AllowMountedWrite,
		ListVar:           EnvAllowDestructive,
		List:              os.Getenv(EnvAllowDestructive),
	})
	if err != nil {
		return fmt.Errorf("stortest: %w", err)
	}
	return nil
}
