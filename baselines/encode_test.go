package baselines

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
)

// Every baseline, synthetic or imported, decodes to what was encoded, and
// encodes to the same bytes again.
func TestRoundTrip(t *testing.T) {
	cases := map[string]*Baseline{
		"synthetic":       synthBaseline(t, 20, 2000, false, 1),
		"synthetic-mixed": synthBaseline(t, 15, 900, true, 2),
	}
	for _, path := range fioFiles(t) {
		for _, b := range importFile(t, path) {
			cases[filepath.Base(path)+"/"+b.Name] = b
		}
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			data, err := Marshal(b)
			require.NoError(t, err)
			back, err := Decode(bytes.NewReader(data), name)
			require.NoError(t, err)
			if diff := cmp.Diff(b, back, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
			again, err := Marshal(back)
			require.NoError(t, err)
			require.Equal(t, string(data), string(again), "not deterministic")
			require.True(t, json.Valid(data))
		})
	}
}

// The file is diffable: a fixed key order, one value per line, histogram
// buckets one per line in ascending order, one second per line.
func TestMarshalLayout(t *testing.T) {
	b := synthBaseline(t, 3, 500, false, 3)
	data, err := Marshal(b)
	require.NoError(t, err)
	text := string(data)
	var top []string
	for _, line := range strings.Split(text, "\n") {
		if m := regexp.MustCompile(`^  "([a-z_]+)":`).FindStringSubmatch(line); m != nil {
			top = append(top, m[1])
		}
	}
	if diff := cmp.Diff([]string{"schema", "name", "created", "runtime_ns", "clones", "fingerprint", "job", "dirs", "seconds"}, top); diff != "" {
		t.Errorf("top-level keys (-want +got):\n%s", diff)
	}
	require.True(t, strings.HasPrefix(text, "{\n  \"schema\": 4,\n  \"name\": \"randread-4k\",\n"))

	bucket := regexp.MustCompile(`^ {10}"(\d+)": \d+,?$`)
	lines, prev := 0, -1
	for _, line := range strings.Split(text, "\n") {
		m := bucket.FindStringSubmatch(line)
		if m == nil {
			prev = -1 // a new histogram starts after other lines
			continue
		}
		v, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		require.Greater(t, v, prev, "buckets ascend")
		prev = v
		lines++
	}
	total := 0
	for _, s := range []*Stat{b.Dirs[0].Slat, b.Dirs[0].Clat, b.Dirs[0].Lat} {
		total += len(s.Hist.Bins)
	}
	require.Equal(t, total, lines, "one bucket per line")

	second := regexp.MustCompile(`^    \{"t_ns":\d+,"dur_ns":\d+,"read":\{"ios":\d+,"bytes":\d+,"clat_p50":\d+,"clat_p99":\d+,"clat_p99.9":\d+,"clat_mean":\d+\}\},?$`)
	n := 0
	for _, line := range strings.Split(text, "\n") {
		if second.MatchString(line) {
			n++
		}
	}
	require.Equal(t, len(b.Seconds), n, "one second per line:\n%s", text[strings.Index(text, `"seconds"`):])
	require.Contains(t, text, "\n        \"p99.9\": ")
}

// Changing one metric changes one line of the file.
func TestMarshalDiffsByLine(t *testing.T) {
	b := synthBaseline(t, 3, 500, false, 4)
	before, err := Marshal(b)
	require.NoError(t, err)
	b.Dirs[0].Clat.P99++
	after, err := Marshal(b)
	require.NoError(t, err)
	a, c := strings.Split(string(before), "\n"), strings.Split(string(after), "\n")
	require.Len(t, c, len(a))
	changed := 0
	for i := range a {
		if a[i] != c[i] {
			changed++
			require.Contains(t, c[i], `"p99": `)
		}
	}
	require.Equal(t, 1, changed)
}

func TestMarshalRejectsNonFinite(t *testing.T) {
	b := synthBaseline(t, 2, 100, false, 5)
	b.Dirs[0].IOPS = math.NaN()
	_, err := Marshal(b)
	require.ErrorContains(t, err, "read.iops is NaN")
}

// A baseline embeds in other JSON documents (reports) through
// encoding/json.
func TestBaselineJSONMethods(t *testing.T) {
	b := synthBaseline(t, 2, 200, false, 6)
	data, err := json.Marshal(struct{ B *Baseline }{b})
	require.NoError(t, err)
	var back struct{ B *Baseline }
	require.NoError(t, json.Unmarshal(data, &back))
	if diff := cmp.Diff(b, back.B, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Every second with clat bins carries its mean; it survives the file, and
// a baseline that claims schema 1 cannot hold it.
func TestClatMeanRoundTrip(t *testing.T) {
	b := synthBaseline(t, 12, 800, true, 12)
	for i, s := range b.Seconds {
		for d, sd := range s.Dirs[:2] {
			require.NotNil(t, sd, "second %d dir %d", i, d)
			require.NotZero(t, sd.ClatMean, "second %d dir %d", i, d)
			require.GreaterOrEqual(t, sd.ClatMean, sd.ClatP50/2, "second %d dir %d: lognormal around 100us", i, d)
			require.Less(t, sd.ClatMean, sd.ClatP99, "second %d dir %d", i, d)
		}
	}
	data, err := Marshal(b)
	require.NoError(t, err)
	require.Equal(t, 2*len(b.Seconds), strings.Count(string(data), `"clat_mean":`))
	back, err := Decode(bytesReader(data), "means.json")
	require.NoError(t, err)
	require.Equal(t, b.PerSecond("read", SecondClatMean), back.PerSecond("read", SecondClatMean))
	require.Equal(t, b.PerSecond("write", SecondClatMean), back.PerSecond("write", SecondClatMean))
	if diff := cmp.Diff(b, back, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}

	b.Schema = 1
	_, err = Marshal(b)
	require.ErrorContains(t, err, "seconds.0 has a clat mean, which schema 1 cannot hold")
}

// What the file cannot hold is refused when it is written, by name:
// slices that do not tile the time line (their ends are stored as
// running sums of their lengths), a list of one run, schema 3's
// additions in an older schema.
func TestMarshalRejectsSchema3Misfits(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(b *Baseline)
		want string
	}{
		{"gap", func(b *Baseline) { b.Slices[3].T += time.Millisecond }, "slices.3 ends at"},
		{"zero-length", func(b *Baseline) { b.Slices[0].Dur = 0 }, "slices.0 ends at"},
		{"no-interval", func(b *Baseline) { b.SliceInterval = 0 }, "slices without a slice interval"},
		{"one-run", func(b *Baseline) { b.Runs = b.Runs[:1] }, "runs holds one run"},
		{"schema-2", func(b *Baseline) { b.Schema = 2 }, "which schema 2 cannot hold (schema 3 can)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := schema3Baseline(t)
			tc.edit(b)
			_, err := Marshal(b)
			require.ErrorContains(t, err, tc.want)
			require.True(t, strings.HasPrefix(err.Error(), "baselines: randrw-4k: "), err.Error())
		})
	}
}

// Slices print by column, one line per column, so that a 60 s run's 600
// slices add a few kilobytes, not a line each.
func TestMarshalSlicesCompact(t *testing.T) {
	b, err := FromJobResult(withSlices(synthJob(t, "long", 0, 60, 2000, true, 40)), Fingerprint{})
	require.NoError(t, err)
	require.Len(t, b.Slices, 604)
	data, err := Marshal(b)
	require.NoError(t, err)
	text := string(data)
	slices := text[strings.Index(text, `"slices"`):]
	slices = slices[:strings.Index(slices, "\n  }")]
	require.Equal(t, 6, strings.Count(slices, "\n"), "interval, lengths, and ios and bytes of two directions:\n%s", slices[:200])
	require.Less(t, len(slices), 20<<10, "bytes for 604 slices")
	t.Logf("%d slices in %d bytes, the file %d bytes", len(b.Slices), len(slices), len(data))
}
