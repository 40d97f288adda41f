package durable

import (
	"fmt"
	"os"
	"syscall"
)

// LockDir takes an exclusive flock on directory dir, waiting while
// another process (or another open of it in this one) holds it, and
// returns the function that releases it. Whole files are replaced by
// rename (Stage), so a lock on the file itself would be on the inode
// the rename drops: the read, change and rewrite of a file by several
// processes hold its directory instead, one at a time. Closing the
// process releases it too.
func LockDir(dir string) (unlock func() error, err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	if err := lockFile(f, dir); err != nil {
		return nil, err
	}
	return f.Close, nil
}

// lockFile takes f's exclusive flock, waiting for it (again after a
// signal); when it cannot, it closes f and returns the error naming path.
func lockFile(f *os.File, path string) error {
	var err error
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("lock %s: %w", path, err)
	}
	return nil
}
