package regress

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func sampleReports(t *testing.T) []Report {
	t.Helper()
	rng := rand.New(rand.NewPCG(21, 21))
	base := noisy.run(t, rng, unchanged)
	slow := noisy.run(t, rng, change{iops: 0.7, latency: 1 / 0.7, tail: 1})
	same := noisy.run(t, rng, unchanged)
	slow.Fingerprint.Firmware = "1.1|beta"
	a := Compare(base, slow, quiet)
	a.Name = "TestRandRead/slow"
	b := Compare(base, same, quiet)
	b.Name = "TestRandRead/same"
	return []Report{a, b}
}

func TestWriteText(t *testing.T) {
	reports := sampleReports(t)
	var buf bytes.Buffer
	require.NoError(t, WriteText(&buf, reports...))
	out := buf.String()
	t.Log("\n" + out)
	require.Contains(t, out, "TestRandRead/slow: REGRESSION\n  changed: firmware 1.0 -> 1.1|beta\n")
	// The level of the intervals the verdicts rest on: family-wise over
	// the six metrics compared.
	require.Regexp(t, `\n  METRIC +BASELINE +CURRENT +CHANGE +99.29% CI +VERDICT\n`, out)
	require.Contains(t, out, "\n  intervals at 99.29%: 95% family-wise over 7 metrics\n", "the table says why its level is what it is")
	require.Regexp(t, `\n  read\.iops +[\d.]+k IOPS +[\d.]+k IOPS +-\d+\.\d% +-\d+\.\d%\.\.-\d+\.\d% +regression\n`, out)
	// Every finding that did not pass has its reason below the table.
	for _, r := range reports {
		for _, f := range r.Findings {
			if !f.Verdict.OK() {
				require.Contains(t, out, "  "+f.Reason+"\n")
			}
		}
	}
	require.Contains(t, out, "\n\nTestRandRead/same: ")
}

func TestWriteMarkdown(t *testing.T) {
	reports := sampleReports(t)
	var buf bytes.Buffer
	require.NoError(t, WriteMarkdown(&buf, reports...))
	out := buf.String()
	require.True(t, strings.HasPrefix(out, "## stortest baseline diff: REGRESSION\n"))
	require.Contains(t, out, "\n### `TestRandRead/slow`: **regression**\n\n- changed: firmware 1.0 -> 1.1\\|beta\n")
	require.Contains(t, out, "| metric | baseline | current | change | 99.29% CI | verdict |\n|---|---:|---:|---:|---:|---|\n")
	require.Contains(t, out, "\n- intervals at 99.29%: 95% family-wise over 7 metrics\n")
	rows := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "| `") {
			rows++
			require.Equal(t, 7, strings.Count(line, "|")-strings.Count(line, `\|`), line)
		}
	}
	require.Equal(t, len(reports[0].Findings)+len(reports[1].Findings), rows)
	require.Contains(t, out, "| `read.iops` | ")
	require.Contains(t, out, " | **regression** |\n")
}

func TestWriteJSON(t *testing.T) {
	reports := sampleReports(t)
	var buf bytes.Buffer
	require.NoError(t, WriteJSON(&buf, reports...))
	var doc struct {
		Verdict string
		Reports []struct {
			Name     string
			Verdict  string
			Findings []struct {
				Metric   string
				Ratio    *float64
				Change   *float64
				Interval *struct{ Low, High float64 }
				Verdict  string
				Reason   string
				Unit     string
				Better   string
			}
			Fingerprint []struct{ Field, Old, New string }
		}
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	require.Equal(t, "regression", doc.Verdict)
	require.Len(t, doc.Reports, 2)
	f := doc.Reports[0].Findings[0]
	require.Equal(t, "read.iops", f.Metric)
	require.Equal(t, "IOPS", f.Unit)
	require.Equal(t, "higher", f.Better)
	require.Equal(t, "regression", f.Verdict)
	require.InDelta(t, *f.Ratio-1, *f.Change, 1e-12)
	require.NotNil(t, f.Interval)
	require.Equal(t, reports[0].Findings[0].Reason, f.Reason)
	require.Equal(t, "firmware", doc.Reports[0].Fingerprint[0].Field)

	buf.Reset()
	require.NoError(t, WriteJSON(&buf))
	require.JSONEq(t, `{"verdict":"pass","reports":[]}`, buf.String())
}

// A change prints as a signed percentage, and what is none in words:
// never "+Inf%", "++Inf%" or "NaN%".
func TestFormatChange(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{
		{0.217, "+21.7%"}, {-0.05, "-5.0%"}, {0, "+0.0%"}, {math.Copysign(0, -1), "+0.0%"}, {-1e-9, "+0.0%"},
		{-1, "-100.0%"}, {12.5, "+1250.0%"}, {math.Inf(1), "from 0"}, {math.NaN(), "n/a"}, {math.Inf(-1), "n/a"},
	} {
		require.Equal(t, c.want, FormatChange(c.x), "FormatChange(%v)", c.x)
	}
}

// A baseline of 0 IOPS (no baseline file holds one, but a baseline built
// in a test may) against a run that did I/O is a change from 0 in every
// output, with no interval: no "Inf%" or "NaN%" anywhere.
func TestWriteChangeFromZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	base := noisy.run(t, rng, unchanged)
	cur := noisy.run(t, rng, unchanged)
	base.Dirs[0].IOPS = 0
	zero := Compare(base, cur, quiet)
	back := Compare(cur, base, quiet)
	f, ok := zero.Finding("read.iops")
	require.True(t, ok)
	require.True(t, math.IsInf(f.Ratio, 1), "ratio %v", f.Ratio)
	for name, write := range map[string]func(io.Writer, ...Report) error{"text": WriteText, "markdown": WriteMarkdown, "json": WriteJSON} {
		var buf bytes.Buffer
		require.NoError(t, write(&buf, zero, back))
		out := buf.String()
		for _, bad := range []string{"Inf%", "NaN%", "Inf", "NaN"} {
			require.NotContains(t, out, bad, "%s:\n%s", name, out)
		}
		if name != "json" {
			require.Regexp(t, `read\.iops`+"`?"+` *\|? *0 IOPS *\|? *[\d.]+k IOPS *\|? *from 0 *\|? *- `, out, name)
		}
	}
	require.Contains(t, f.Reason, "read iops ")
	require.Regexp(t, `vs baseline 0 IOPS \(from 0\): `, f.Reason)
}
