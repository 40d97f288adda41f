package iogen

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
)

// iologDirs returns the directions of an iolog fio wrote (write_iolog):
// 'r' and 'w', one a read or write line.
func iologDirs(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var b strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 5 {
			continue
		}
		switch fields[2] {
		case "read":
			b.WriteByte('r')
		case "write":
			b.WriteByte('w')
		}
	}
	require.NoError(t, sc.Err())
	return b.String()
}

// patternDirs returns the first n directions of the pattern of job, the
// clone with fio's thread number thread.
func patternDirs(t *testing.T, j *workload.Job, thread, n int) string {
	t.Helper()
	p, err := NewClonePattern(j, 0, Seed(j, 0, 0), thread, 0)
	require.NoError(t, err)
	b := make([]byte, n)
	for i := range b {
		b[i] = 'r'
		if p.Next().Dir == workload.DirWrite {
			b[i] = 'w'
		}
	}
	return string(b)
}

// TestMixAsFio: the directions of mixed jobs, in order, are those fio
// 3.33 issued for the same jobs (testdata/rwmix/jobs.fio, one job a
// thread number, recorded by record.sh): rwmixread 30 to 90, rwmixwrite,
// a randseed (thread 5), and loops, which restart the mix (with randseed,
// without reseeding it).
func TestMixAsFio(t *testing.T) {
	dir := filepath.Join("..", "testdata", "rwmix")
	f, err := os.Open(filepath.Join(dir, "jobs.fio"))
	require.NoError(t, err)
	defer f.Close()
	jobs, err := parseFile(f, "jobs.fio")
	require.NoError(t, err)
	require.Len(t, jobs, 9)
	for k := range jobs {
		j := &jobs[k]
		t.Run(j.Name, func(t *testing.T) {
			want := iologDirs(t, filepath.Join(dir, j.Name+".iolog"))
			require.NotEmpty(t, want)
			got := patternDirs(t, j, k+1, len(want))
			if got != want {
				i := 0
				for got[i] == want[i] {
					i++
				}
				t.Errorf("directions differ from fio's first at I/O %d of %d: %d writes, fio %d",
					i, len(want), strings.Count(got, "w"), strings.Count(want, "w"))
			}
		})
	}
}

// TestMixSeeds: fio's seeding. The thread number and randseed change the
// sequence; randrepeat=0 draws from entropy, and only a randrepeat mix
// restarts from its seed.
func TestMixSeeds(t *testing.T) {
	j := workload.Job{Name: "m", RW: workload.RandRW, Size: 1 << 20}
	one, two := patternDirs(t, &j, 1, 200), patternDirs(t, &j, 2, 200)
	assert.NotEqual(t, one, two, "threads 1 and 2")
	s1, r1 := MixSeed(&j, 1, 0)
	assert.True(t, r1, "randrepeat restarts")
	j.RandSeed = 1234
	s2, r2 := MixSeed(&j, 1, 0)
	assert.NotEqual(t, s1, s2)
	assert.False(t, r2, "randseed does not restart")
	j.RandSeed, j.RandRepeat = 0, workload.Bool(false)
	e1, _ := MixSeed(&j, 1, 1)
	e2, r3 := MixSeed(&j, 1, 2)
	assert.NotEqual(t, e1, e2, "entropy seeds")
	assert.False(t, r3)
}

// TestMixerSwitched: when a rate limit issues the other direction, the
// mix goes on from it, with the counts of what was issued.
func TestMixerSwitched(t *testing.T) {
	m := NewMixer(workload.RandRW, 50, 1)
	d := m.Next()
	o := workload.DirWrite
	if d == workload.DirWrite {
		o = workload.DirRead
	}
	m.Switched(d, o)
	assert.Equal(t, o, m.cur)
	assert.Equal(t, uint64(1), m.issues[o])
	assert.Equal(t, uint64(0), m.issues[d])
}

// TestMixAllocatesNothing: the mix's draws, restarts (a pass of 16
// blocks) and switches allocate nothing.
func TestMixAllocatesNothing(t *testing.T) {
	j := workload.Job{Name: "a", RW: workload.RandRW, Size: 16 * 4096}
	p, err := NewPattern(&j, 0, 1)
	require.NoError(t, err)
	if a := testing.AllocsPerRun(1000, func() { p.NextIO(workload.DirWrite - p.NextDir()) }); a != 0 {
		t.Errorf("Pattern.NextDir and NextIO allocate %v times per I/O", a)
	}
	assert.Greater(t, p.Passes(), int64(50))
}
