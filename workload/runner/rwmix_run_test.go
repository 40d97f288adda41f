package runner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
)

// TestMixCountsAsFio: every clone of testdata/rwmix/counts.fio (fio's
// t0008 among them: its harness wants the 16568 KiB written) reads and
// writes what fio 3.33 did, verify reads included: sequential and random
// jobs, two clones, verify_backlog on and off, a randseed.
func TestMixCountsAsFio(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "testdata", "rwmix"))
	require.NoError(t, err)
	raw, err := os.ReadFile(filepath.Join(dir, "counts.json"))
	require.NoError(t, err)
	var fio struct {
		Jobs []struct {
			Name        string `json:"jobname"`
			Read, Write struct {
				IOs    uint64 `json:"total_ios"`
				KBytes uint64 `json:"io_kbytes"`
			}
		}
	}
	require.NoError(t, json.Unmarshal(raw, &fio))
	f, err := os.Open(filepath.Join(dir, "counts.fio"))
	require.NoError(t, err)
	defer f.Close()
	jobs, err := parseFile(f, "counts.fio")
	require.NoError(t, err)
	t.Chdir(t.TempDir()) // the jobs' default file names
	res, err := RunJobs(context.Background(), jobs, workload.Options{})
	require.NoError(t, err)
	require.Len(t, res.Jobs, len(fio.Jobs))
	for i, want := range fio.Jobs {
		got := res.Jobs[i]
		require.NoError(t, got.Err, got.Name)
		require.Equal(t, want.Name, got.Name)
		r, w := got.Dirs[workload.DirRead], got.Dirs[workload.DirWrite]
		assert.Equal(t, []uint64{want.Read.IOs, want.Read.KBytes, want.Write.IOs, want.Write.KBytes},
			[]uint64{r.IOs, r.Bytes >> 10, w.IOs, w.Bytes >> 10},
			"%s clone %d: read I/Os, KiB, write I/Os, KiB", got.Name, got.Clone)
		assert.Zero(t, got.Verify.Mismatches, got.Name)
	}
}

// TestMixUnseeded: with randrepeat=0 (and no randseed) each run draws its
// own mix seed, as fio seeds from /dev/urandom; with randrepeat every run
// has fio's.
func TestMixUnseeded(t *testing.T) {
	j := workload.Job{Name: "u", Engine: "null", RW: workload.RandRW, Size: 1 << 20, RandRepeat: workload.Bool(false)}
	j = j.Normalized()
	seeds := map[uint32]bool{}
	for range 4 {
		s, err := newIOSource(j, 0, 1, 0)
		require.NoError(t, err)
		seed, restart := s.pat.MixSeed()
		seeds[seed] = true
		assert.False(t, restart)
	}
	assert.Len(t, seeds, 4, "four runs, four seeds")
	j.RandRepeat = workload.Bool(true)
	a, err := newIOSource(j, 0, 1, 0)
	require.NoError(t, err)
	b, err := newIOSource(j, 0, 1, 0)
	require.NoError(t, err)
	sa, _ := a.pat.MixSeed()
	sb, _ := b.pat.MixSeed()
	assert.Equal(t, sa, sb)
	want, _ := j.MixSeed(1, 0)
	assert.Equal(t, want, sa)
}
