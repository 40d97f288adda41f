package workload

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
)

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

	job := Job{Name: "terse", Engine: "null", RW: RandRW, BlockSize: 4096, Size: 1 << 20, LatPercentiles: true}
	res, err := Run(context.Background(), job, Options{})
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, WriteTerse(&b, res))
	got := strings.Split(strings.TrimSuffix(b.String(), "\n"), ";")
	require.Len(t, got, len(want), "fio's fields")
	assert.Equal(t, want[0], got[0], "terse version")
	assert.Equal(t, want[2], got[2], "job name")
	for i := range got {
		pctField := strings.Contains(want[i], "%=")
		assert.Equal(t, pctField, strings.Contains(got[i], "%="), "field %d: %q vs fio's %q", i, got[i], want[i])
		assert.Equal(t, strings.HasSuffix(want[i], "%"), strings.HasSuffix(got[i], "%"), "field %d: %q vs fio's %q", i, got[i], want[i])
	}
	list := DefaultPercentiles
	for _, dir := range []struct {
		d     Dir
		first int
	}{{DirRead, 17}, {DirWrite, 58}} {
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
