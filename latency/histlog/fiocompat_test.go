package histlog

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// toolArgs parses the option line recorded with each output of
// fio-histo-log-pctiles.py (testdata/record.sh).
func toolArgs(t *testing.T, line string) (FioOptions, []Input) {
	t.Helper()
	var opt FioOptions
	var inputs []Input
	args := strings.Fields(strings.TrimPrefix(line, "#"))
	num := func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("option line %q: %v", line, err)
		}
		return n
	}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "--":
		case "--time-quantum":
			i++
			opt.TimeQuantum = num(args[i])
		case "--log-hist-msec":
			i++
			opt.LogHistMsec = num(args[i])
		case "--fio-version":
			i++
			opt.FioVersion = num(args[i])
		case "--output-unit":
			i++
			opt.OutputUnit = args[i]
		case "--percentiles":
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "--") {
				i++
				p, err := strconv.ParseFloat(args[i], 64)
				if err != nil {
					t.Fatal(err)
				}
				opt.Percentiles = append(opt.Percentiles, p)
			}
		default:
			if strings.HasPrefix(a, "--") {
				t.Fatalf("option line %q: unknown %s", line, a)
			}
			inputs = append(inputs, ParseInput(filepath.Join("testdata", a)))
		}
	}
	return opt, inputs
}

// equalWithin compares two outputs of the tool: lines other than rows
// must be equal; in rows, numbers may differ by 1e-9 relative.
func equalWithin(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	if len(w) != len(g) {
		return cmp.Diff(want, got)
	}
	for i := range w {
		if w[i] == g[i] {
			continue
		}
		fw, fg := strings.Split(w[i], ", "), strings.Split(g[i], ", ")
		if len(fw) != len(fg) || !strings.HasPrefix(w[i], " ") {
			return "line " + strconv.Itoa(i+1) + ":\n" + cmp.Diff(w[i], g[i])
		}
		for k := range fw {
			a, errA := strconv.ParseFloat(strings.TrimSpace(fw[k]), 64)
			b, errB := strconv.ParseFloat(strings.TrimSpace(fg[k]), 64)
			if fw[k] != fg[k] && (errA != nil || errB != nil || !approxEqual(a, b, 1e-9)) {
				return "line " + strconv.Itoa(i+1) + " field " + strconv.Itoa(k+1) + ":\n" + cmp.Diff(w[i], g[i])
			}
		}
	}
	return ""
}

func approxEqual(a, b, rel float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= rel*max(abs(a), abs(b))
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func utc(t *testing.T) {
	t.Helper()
	old := time.Local
	time.Local = time.UTC // as the recordings were made (record.sh)
	t.Cleanup(func() { time.Local = old })
}

// TestFioPctilesMatchesTheTool compares FioPctiles with the recorded
// output of fio-histo-log-pctiles.py for logs fio 3.33 wrote and for
// synthetic logs that reach the tool's corners (testdata/record.sh).
func TestFioPctilesMatchesTheTool(t *testing.T) {
	utc(t)
	files, err := filepath.Glob("testdata/pctiles/*.txt")
	if err != nil || len(files) < 5 {
		t.Fatalf("recorded outputs: %v %v", files, err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			first, want, _ := strings.Cut(string(b), "\n")
			opt, inputs := toolArgs(t, first)
			for _, w := range []int{0, 1, 2} { // the window never changes the output
				forceWindow = w
				var got bytes.Buffer
				err := FioPctiles(context.Background(), &got, inputs, opt)
				forceWindow = 0
				if err != nil {
					t.Fatal(err)
				}
				if diff := equalWithin(want, got.String()); diff != "" {
					t.Fatalf("window %d: output differs from the tool's beyond 1e-9 (-tool +FioPctiles):\n%s", w, diff)
				}
				if got.String() != want {
					t.Errorf("window %d: output within 1e-9 of the tool's but not identical (-tool +FioPctiles):\n%s", w, cmp.Diff(want, got.String()))
				}
			}
		})
	}
}

func TestFioPctilesCountsAPathOnce(t *testing.T) {
	one := ParseInput("testdata/fio/h_clat_hist.2.log")
	var a, b bytes.Buffer
	if err := FioPctiles(context.Background(), &a, []Input{one}, FioOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := FioPctiles(context.Background(), &b, []Input{one, one}, FioOptions{}); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("a path given twice changed the output:\n%s", cmp.Diff(a.String(), b.String()))
	}
}

func fineRow(t uint64, d Direction, n uint64) string {
	c := make([]uint64, 1856)
	c[700] = n
	return logRow(t, d, c...)
}

// epochRows returns n read rows a second apart after t0 ms.
func epochRows(t0 uint64, n int) string {
	var b strings.Builder
	for k := 1; k <= n; k++ {
		b.WriteString(fineRow(t0+uint64(k)*1000, Read, 1))
	}
	return b.String()
}

func TestFioPctilesRefusesWhatTheToolRejects(t *testing.T) {
	utc(t)
	ok := fineRow(1000, Read, 5) + fineRow(2000, Read, 5) + fineRow(3000, Read, 5)
	tests := []struct {
		name     string
		logs     []string
		opt      FioOptions
		sentinel error
		text     string
	}{
		{"trim rows", []string{ok + fineRow(3500, Trim, 1)}, FioOptions{}, ErrUnsupported, "a.log:4: column 2"},
		{"coarse log", []string{logRow(1000, Read, coarse(3, 1)...) + logRow(2000, Read, coarse(3, 1)...)}, FioOptions{}, ErrUnsupported, "29 buckets per interval but 1856 expected"},
		{"block size over 16 MiB", []string{strings.Replace(ok, "2000, 0, 4096", "2000, 0, 16777217", 1)}, FioOptions{}, ErrUnsupported, "a.log:2: column 3"},
		{"lookahead assertion", []string{fineRow(1000, Read, 1) + fineRow(1000, Write, 1) + fineRow(2000, Write, 1) + fineRow(3000, Write, 1) + fineRow(4000, Read, 1)},
			FioOptions{}, ErrUnsupported, "a.log:1: no read row among the next 3"},
		{"division by zero", []string{fineRow(1500, Read, 1) + fineRow(1500, Write, 1) + fineRow(1500, Read, 1) + fineRow(2500, Read, 1)},
			FioOptions{}, ErrUnsupported, "divides by zero"},
		{"one epoch row without log_hist_msec", []string{fineRow(1700000000000, Read, 1)}, FioOptions{}, ErrUnsupported, "no way to estimate"},
		{"no common time", []string{fineRow(1700000000000, Read, 1) + fineRow(1700000001000, Read, 1), fineRow(1700000005000, Read, 1) + fineRow(1700000006000, Read, 1)},
			FioOptions{}, nil, "no time interval"},
		{"malformed late row", []string{ok + "4000, 0, x\n"}, FioOptions{}, ErrSyntax, "a.log:4: column 3"},
		{"malformed row past the common end", []string{ok + epochRows(3000, 20) + "30000, 1\n", ok},
			FioOptions{}, ErrColumns, "a.log:24:"},
		{"malformed last row found from the end", []string{strings.Repeat(fineRow(1000, Read, 1), 20) + "2000x, 1, 4096\n"},
			FioOptions{}, ErrSyntax, "a.log:21: column 1"},
		{"rows before the start beyond the quanta (the tool's IndexError)",
			[]string{epochRows(1700000000000, 119), epochRows(1700000100000, 5)}, FioOptions{LogHistMsec: 1000}, ErrUnsupported, "a.log:1: column 1: row at 1700000001000 ms"},
		{"empty log", []string{""}, FioOptions{}, ErrNoRows, "a.log"},
		{"percentile over 100", []string{ok}, FioOptions{Percentiles: []float64{101}}, nil, "percentile 101"},
		{"nanosecond unit", []string{ok}, FioOptions{OutputUnit: "nsec"}, nil, "output unit"},
		{"fio 4", []string{ok}, FioOptions{FioVersion: 4}, nil, "fio version 4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var inputs []Input
			for i, l := range tc.logs {
				inputs = append(inputs, memInput(string(rune('a'+i)), l))
			}
			err := FioPctiles(context.Background(), &bytes.Buffer{}, inputs, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.text) || (tc.sentinel != nil && !errors.Is(err, tc.sentinel)) {
				t.Errorf("error %v: want %q and %v", err, tc.text, tc.sentinel)
			}
		})
	}
}

// TestFioPctilesSpreadsAsTheTool checks the weights of the tool's own
// unit test (test_d2_align_histo_log_2_quantum): a row at 2000 ms that
// runs to 7000 ms gives 3/5 of its counts to [0, 5 s) and 2/5 to
// [5 s, 10 s), where the row at 7000 ms adds all of its own.
func TestFioPctilesSpreadsAsTheTool(t *testing.T) {
	var out bytes.Buffer
	log := memInput("d2", fineRow(2000, Write, 10)+fineRow(7000, Write, 10))
	err := FioPctiles(context.Background(), &out, []Input{log}, FioOptions{TimeQuantum: 5, Percentiles: []float64{100}})
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), " ") {
			rows = append(rows, sc.Text())
		}
	}
	// Bucket 700 is [63488, 64000) ns: the max is its top, in us.
	want := []string{"       0,        6, 64.0", "    5000,       14, 64.0"}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}
