package runner

import (
	"bufio"
	"context"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
	"stortest.dev/workload/fioout"
)

// runTerse runs job and returns its result and the fields of its terse
// line, which must number fields, as fio's do.
func runTerse(t *testing.T, job workload.Job, fields int) (*workload.Result, []string) {
	t.Helper()
	res, err := Run(context.Background(), job, workload.Options{})
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, fioout.WriteTerse(&b, res))
	got := strings.Split(strings.TrimSuffix(b.String(), "\n"), ";")
	require.Len(t, got, fields, "fio's fields")
	return res, got
}

// Terse version 3 has fio 3.33's fields (the null engine's job has no
// disk fields, in fio's recorded terse.out as here), and its percentile
// fields are the lat percentiles in µs, truncated, when
// lat_percentiles is on: what fio's t/latency_percentiles.py compares
// with the JSON.
func TestWriteTerse(t *testing.T) {
	f, err := os.Open("testdata/fio333/logs/terse.out")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	require.True(t, sc.Scan())
	want := strings.Split(sc.Text(), ";")

	job := workload.Job{Name: "terse", Engine: "null", RW: workload.RandRW, BlockSize: 4096, Size: 1 << 20, LatPercentiles: true}
	res, got := runTerse(t, job, len(want))
	assert.Equal(t, want[0], got[0], "terse version")
	assert.Equal(t, want[2], got[2], "job name")
	for i := range got {
		pctField := strings.Contains(want[i], "%=")
		assert.Equal(t, pctField, strings.Contains(got[i], "%="), "field %d: %q vs fio's %q", i, got[i], want[i])
		assert.Equal(t, strings.HasSuffix(want[i], "%"), strings.HasSuffix(got[i], "%"), "field %d: %q vs fio's %q", i, got[i], want[i])
	}
	list := workload.DefaultPercentiles
	for _, dir := range []struct {
		d     workload.Dir
		first int
	}{{workload.DirRead, 17}, {workload.DirWrite, 58}} {
		vals := res.Jobs[0].Dirs[dir.d].Lat.Percentiles(list)
		for k, p := range list {
			field := got[dir.first+k]
			pct, us, ok := strings.Cut(field, "%=")
			require.True(t, ok, field)
			pv, err := strconv.ParseFloat(pct, 64)
			require.NoError(t, err)
			assert.Equal(t, p, pv)
			assert.Equal(t, strconv.FormatUint(uint64(math.Floor(float64(vals[k])/1000)), 10), us, "%s %v", dir.d, p)
		}
	}
}

// unified_rw_reporting in terse: fio 3.33 writes read and write (none),
// the mixed direction alone (mixed), or read, write and then mixed
// (both); the mixed direction's KiB are the job's.
func TestWriteTerseUnified(t *testing.T) {
	for u, name := range []string{"none", "mixed", "both"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile("testdata/fio333/logs/terse-unified-" + strconv.Itoa(u) + ".out")
			require.NoError(t, err)
			want := strings.Split(strings.TrimSpace(string(b)), ";")
			job := workload.Job{Name: "a", Engine: "null", RW: workload.RandRW, BlockSize: 4096, Size: 1 << 20,
				NoClatPercentiles: true, UnifiedRW: workload.UnifiedRW(u)}
			_, got := runTerse(t, job, len(want))
			const dirFields = 41 // KiB .. bw stddev of one direction, from field 5
			kib := func(f []string, k int) string { return f[5+k*dirFields] }
			switch workload.UnifiedRW(u) {
			case workload.UnifiedMixed:
				assert.Equal(t, kib(want, 0), kib(got, 0), "mixed KiB")
			case workload.UnifiedBoth:
				assert.Equal(t, kib(want, 2), kib(got, 2), "mixed KiB after read and write")
			}
			for i := range got {
				assert.Equal(t, strings.HasSuffix(want[i], "%"), strings.HasSuffix(got[i], "%"), "field %d: %q vs fio's %q", i, got[i], want[i])
			}
		})
	}
}
