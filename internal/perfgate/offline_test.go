package perfgate_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/baselines"
)

// recorded returns the sessions recorded of case c under testdata, or
// skips when there are too few to leave one out.
func recorded(t *testing.T, c Case, least int) []Session {
	t.Helper()
	ss, err := readSessions(filepath.Join("testdata", "rounds", c.Name+".jsonl"))
	require.NoError(t, err)
	if len(ss) < least {
		t.Skipf("%s: %d sessions recorded, want %d (make perf-record)", c.Name, len(ss), least)
	}
	return ss
}

// leaveOneOut judges each recorded session, with every round's
// stortest CPU per I/O raised by ns, against the baselines and fio's
// range of the other sessions, as the gate would have the day it was
// recorded.
func leaveOneOut(t *testing.T, c Case, ss []Session, ns float64) []Judgement {
	t.Helper()
	var out []Judgement
	for j := range ss {
		others := append(append([]Session(nil), ss[:j]...), ss[j+1:]...)
		cur := ss[j]
		cur.Rounds = make([]Round, len(ss[j].Rounds))
		for i, r := range ss[j].Rounds {
			cur.Rounds[i] = r.slower(ns)
		}
		out = append(out, judgeAgainst(t, c, others, cur))
	}
	return out
}

// judgeAgainst judges session cur of case c against the baselines and
// the range of fio's own CPU per I/O of the sessions recorded.
func judgeAgainst(t *testing.T, c Case, recorded []Session, cur Session) Judgement {
	t.Helper()
	base := map[Figure]*baselines.Baseline{}
	for _, f := range c.figures() {
		b, err := c.growOf(f, recorded)
		require.NoError(t, err)
		base[f] = b
	}
	j, err := c.Judge(base, fioRange(recorded), cur)
	require.NoError(t, err)
	return j
}

// The gate fails on 20 ns more CPU per I/O of the null engine, and
// passes the same sessions unchanged: each recorded session, judged
// against the baselines of the others, passes as measured and is a
// regression with every round's stortest CPU per I/O raised by 20 ns
// (what a busy wait of 20 ns per I/O adds; the stortest_perfslow build
// tag does it for real, see doc.go). A session whose fio figure is out
// of the others' range is not comparable, slowed or not (the gate
// would measure it again); most are comparable.
func TestGateCatches20nsPerIO(t *testing.T) {
	c := Cases[0]
	require.Equal(t, "null", c.Job.Engine)
	ss := recorded(t, c, 4)
	same, slow := leaveOneOut(t, c, ss, 0), leaveOneOut(t, c, ss, 20)
	comparable := 0
	for j := range ss {
		assert.False(t, same[j].Regression(), "session %d unchanged:\n%s", j+1, reasons(same[j]))
		require.Equal(t, same[j].Comparable(), slow[j].Comparable(), "session %d: fio's figure is the same", j+1)
		if !slow[j].Comparable() {
			t.Logf("session %d: %s", j+1, slow[j].Note())
			continue
		}
		comparable++
		assert.True(t, slow[j].Regression(), "session %d + 20 ns/IO:\n%s", j+1, reasons(slow[j]))
	}
	assert.Greater(t, 2*comparable, len(ss), "%d of %d sessions comparable with the others", comparable, len(ss))
}

// Every recorded session of every case, judged as measured against the
// baselines of the others, is no regression; and the smallest added CPU
// per I/O that the gate catches in every one is logged (doc.go).
func TestGateSensitivity(t *testing.T) {
	for _, c := range Cases {
		t.Run(c.Name, func(t *testing.T) {
			ss := recorded(t, c, 4)
			comparable := 0
			for j, jd := range leaveOneOut(t, c, ss, 0) {
				assert.False(t, jd.Regression(), "session %d unchanged:\n%s", j+1, reasons(jd))
				if jd.Comparable() {
					comparable++
				}
			}
			if c.Own {
				t.Logf("%s: %d of %d sessions comparable with the others", c.Name, comparable, len(ss))
			}
			// The smallest slowdown every session fails with; for a case
			// judging stortest's own figure, every comparable one too.
			caught := map[bool]float64{}
			for _, ns := range []float64{10, 20, 50, 100, 200, 500, 1000, 2000, 5000} {
				all, allComparable := true, true
				for _, jd := range leaveOneOut(t, c, ss, ns) {
					all = all && jd.Regression()
					allComparable = allComparable && (jd.Regression() || !jd.Comparable())
				}
				for k, v := range map[bool]bool{true: allComparable, false: all} {
					if _, ok := caught[k]; !ok && v {
						caught[k] = ns
					}
				}
				if len(caught) == 2 {
					break
				}
			}
			for _, k := range []bool{true, false} {
				what := map[bool]string{true: "every comparable one", false: "every one"}[k]
				if ns, ok := caught[k]; ok && (c.Own || !k) {
					t.Logf("%s: %d sessions: %s fails with %.0f ns more CPU per I/O", c.Name, len(ss), what, ns)
				} else if !ok && (c.Own || !k) {
					t.Logf("%s: %d sessions: not %s fails even with 5 µs more CPU per I/O", c.Name, len(ss), what)
				}
			}
		})
	}
}

func reasons(j Judgement) string {
	var b strings.Builder
	b.WriteString(j.Note() + "\n")
	for _, rep := range j.Reports {
		for _, f := range rep.Findings {
			b.WriteString(rep.Name + ": " + f.Reason + "\n")
		}
	}
	return b.String()
}

// The baselines under testdata are their recorded rounds: grown from
// them session by session, byte for byte (make perf-record writes both;
// STORTEST_PERF_GATE=rebuild rewrites the baselines from the rounds).
func TestBaselinesAreTheirRounds(t *testing.T) {
	for _, c := range Cases {
		ss, err := readSessions(filepath.Join("testdata", "rounds", c.Name+".jsonl"))
		require.NoError(t, err)
		for _, f := range c.figures() {
			path := filepath.Join("testdata", c.File(f))
			committed, err := os.ReadFile(path)
			if len(ss) == 0 {
				assert.True(t, os.IsNotExist(err), "%s without rounds", path)
				continue
			}
			require.NoError(t, err)
			b, err := c.growOf(f, ss)
			require.NoError(t, err)
			want, err := baselines.Marshal(b)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(want, committed), "%s is not the baseline of testdata/rounds/%s.jsonl: run STORTEST_PERF_GATE=rebuild", path, c.Name)
			_, err = baselines.Load(path)
			assert.NoError(t, err)
		}
	}
}

// A damaged rounds file is refused naming the file, the line and what
// is wrong; it never panics.
func TestReadSessionsErrors(t *testing.T) {
	dir := t.TempDir()
	good := `{"session":"a","rounds":[{"fio":{"ios":10,"iops":100,"cpu_ns_per_io":150},"stortest":{"ios":12,"iops":120,"cpu_ns_per_io":120}}]}`
	for name, tc := range map[string]struct{ body, want string }{
		"syntax":    {good + "\n{\"session\":", ":2: "},
		"no rounds": {`{"session":"a","rounds":[]}`, ":1: rounds: none"},
		"no cpu":    {strings.Replace(good, `"cpu_ns_per_io":120`, `"cpu_ns_per_io":0`, 1), ":1: rounds[0]: a run without I/O or CPU"},
		"no ios":    {strings.Replace(good, `"ios":10,`, `"ios":0,`, 1), ":1: rounds[0]"},
		"a string":  {strings.Replace(good, `"iops":100`, `"iops":"fast"`, 1), ":1: "},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".jsonl")
		require.NoError(t, os.WriteFile(path, []byte(tc.body), 0o600))
		_, err := readSessions(path)
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), path+tc.want, name)
	}
	path := filepath.Join(dir, "good.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(good+"\n"+good+"\n"), 0o600))
	ss, err := readSessions(path)
	require.NoError(t, err)
	assert.Len(t, ss, 2)
	ss, err = readSessions(filepath.Join(dir, "missing.jsonl"))
	assert.NoError(t, err)
	assert.Empty(t, ss)
}
