package durable

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A second lock of the directory waits for the first to be released.
func TestLockDirWaits(t *testing.T) {
	dir := t.TempDir()
	unlock, err := LockDir(dir)
	require.NoError(t, err)
	got := make(chan time.Time, 1)
	go func() {
		u, err := LockDir(dir)
		if err == nil {
			got <- time.Now()
			u()
		}
		close(got)
	}()
	time.Sleep(200 * time.Millisecond)
	released := time.Now()
	require.NoError(t, unlock())
	at, ok := <-got
	require.True(t, ok, "the second lock failed")
	require.False(t, at.Before(released), "the second lock was taken while the first was held")
	_, err = LockDir(dir + "/missing")
	require.Error(t, err)
}
