package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/internal/testenv"
	"stortest.dev/iostat/replay"
)

func iostatFixture(t *testing.T, kernel string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"diskstats", "uptime"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "iostat", "testdata", kernel, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type sysstatDoc struct {
	Sysstat struct {
		Hosts []struct {
			Statistics []struct {
				Disk []map[string]any
			}
		}
	}
}

func TestIostatLive(t *testing.T) {
	dir := iostatFixture(t, "k18")
	tests := []struct {
		name    string
		args    []string
		reports int
		devices int    // per report, text only
		want    string // a substring
	}{
		{"since boot", []string{"-dx", "-p", "ALL"}, 1, 7, "sda              1.02"},
		{"three reports", []string{"-d", "-x", "-p", "ALL", "0.02", "3"}, 3, 7, "%rrqm r_await"},
		{"skip the first", []string{"-d", "-p", "ALL", "-y", "0.02", "2"}, 2, 7, "kB_read/s"},
		{"named device", []string{"-dx", "nvme0n1", "-p", "ALL", "0.02", "1"}, 1, 7, "nvme0n1"},
		{"idle omitted", []string{"-dxz", "-p", "ALL", "-y", "0.02", "1"}, 1, 0, "Device"},
		{"interval 0: one report", []string{"-d", "-p", "ALL", "0"}, 1, 7, "Device"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"iostat", "--proc", dir, "--sys", dir}, tc.args...)
			if code := runMain(args, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			out := stdout.String()
			if n := strings.Count(out, "\nDevice "); n != tc.reports {
				t.Errorf("%d reports, want %d:\n%s", n, tc.reports, out)
			}
			reports := strings.Split(out, "\nDevice ")[1:]
			for i, r := range reports {
				body := strings.TrimSpace(r[strings.Index(r, "\n")+1:])
				n := 0
				if body != "" {
					n = len(strings.Split(body, "\n"))
				}
				if n != tc.devices {
					t.Errorf("report %d: %d devices, want %d:\n%s", i, n, tc.devices, r)
				}
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("no %q in\n%s", tc.want, out)
			}
		})
	}
}

func TestIostatLiveJSON(t *testing.T) {
	dir := iostatFixture(t, "k20")
	stdout := runOK(t, []string{"iostat", "--proc", dir, "--sys", dir, "-dx", "--json", "-p", "ALL", "0.02", "2"})
	var doc sysstatDoc
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, stdout.String())
	}
	st := doc.Sysstat.Hosts[0].Statistics
	if len(st) != 2 || len(st[0].Disk) == 0 {
		t.Fatalf("statistics: %+v", st)
	}
	if _, ok := st[0].Disk[0]["aqu-sz"]; !ok {
		t.Errorf("no aqu-sz in %v", st[0].Disk[0])
	}
	// The fixture does not change: the second report is all zero.
	if v := st[1].Disk[0]["r/s"]; v != 0.0 {
		t.Errorf("second report r/s %v, want 0", v)
	}
}

func TestIostatDiff(t *testing.T) {
	pair := filepath.Join("..", "..", "iostat", "testdata", "pairs", "steady")
	a, b := filepath.Join(pair, "diskstats.a"), filepath.Join(pair, "diskstats.b")
	stdout := runOK(t, []string{"iostat", "diff", a, b, "--interval", "2.37", "--json"})
	var doc sysstatDoc
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, stdout.String())
	}
	disks := doc.Sysstat.Hosts[0].Statistics[0].Disk
	if len(disks) != 4 {
		t.Fatalf("%d disks, want 4 (every line, as -p ALL)", len(disks))
	}
	// sda: 3 reads over 2.37 s; nvme0n1: 100000 reads.
	want := map[string]float64{"sda": 1.27, "nvme0n1": 42194.09}
	for _, d := range disks {
		if w, ok := want[d["disk_device"].(string)]; ok && d["r/s"] != w {
			t.Errorf("%s r/s %v, want %v", d["disk_device"], d["r/s"], w)
		}
	}

	stdout = runOK(t, []string{"iostat", "diff", "--interval", "2370ms", "--raw", a, b})
	for _, s := range []string{"r_await", "ReadIOs", "TimeInQueue", "nvme0n1p1"} {
		if !strings.Contains(stdout.String(), s) {
			t.Errorf("no %q in\n%s", s, stdout.String())
		}
	}
}

// TestIostatUsage: mistakes on the live iostat's line exit 1, as
// sysstat's (TestIostatUsageSysstat has its text), stortest's own
// extensions' too; "iostat diff" is stortest's and exits 2.
func TestIostatUsage(t *testing.T) {
	pair := filepath.Join("..", "..", "iostat", "testdata", "pairs", "steady")
	a := filepath.Join(pair, "diskstats.a")
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"too many numbers", []string{"iostat", "1", "2", "3"}, 1},
		{"unknown option", []string{"iostat", "-dq"}, 1},
		{"negative interval", []string{"iostat", "-2", "1"}, 1},
		{"bad count", []string{"iostat", "1", "0"}, 1},
		{"count without an interval", []string{"iostat", "0", "3"}, 1},
		{"interval below 10 ms", []string{"iostat", "0.001"}, 1},
		{"-H without -g", []string{"iostat", "-H"}, 1},
		{"-k with -m", []string{"iostat", "-km"}, 1},
		{"-o not JSON", []string{"iostat", "-o", "XML"}, 1},
		{"--dec=3", []string{"iostat", "--dec=3"}, 1},
		{"-g without a name", []string{"iostat", "-g"}, 1},
		{"-f twice", []string{"iostat", "-f", "/", "+f", "/"}, 1},
		{"unknown persistent type", []string{"iostat", "-j", "nosuchtype"}, 1},
		{"diff with one file", []string{"iostat", "diff", a, "--interval", "1"}, 2},
		{"diff without interval", []string{"iostat", "diff", a, a}, 2},
		{"diff with a bad interval", []string{"iostat", "diff", a, a, "--interval", "soon"}, 2},
		{"diff of a missing file", []string{"iostat", "diff", a, "/nonexistent", "--interval", "1"}, 1},
		{"missing proc root", []string{"iostat", "--proc", "/nonexistent"}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := runMain(tc.args, &stdout, &stderr); code != tc.code {
				t.Errorf("exit %d, want %d: %s", code, tc.code, stderr.String())
			}
		})
	}
}

// TestIostatHelp: the usage line and --help list every option, from the
// tables the command line is parsed with.
func TestIostatHelp(t *testing.T) {
	stdout := runOK(t, []string{"iostat", "--help"})
	usage := iostatUsage()
	for _, f := range iostatLetters {
		if !strings.Contains(stdout.String(), "  -"+string(f.letter)+"\n\t") || !strings.Contains(usage, string(f.letter)) {
			t.Errorf("-%c missing from the help or the usage", f.letter)
		}
	}
	for _, w := range iostatWords {
		if !strings.Contains(stdout.String(), "  "+w.name) || !strings.Contains(usage, w.name) {
			t.Errorf("%s missing from the help or the usage", w.name)
		}
	}
}

// TestIostatRaw: --raw prints each report's counters and notes after it.
func TestIostatRaw(t *testing.T) {
	dir := iostatFixture(t, "k18")
	stdout := runOK(t, []string{"iostat", "--proc", dir, "--sys", dir, "-dx", "--raw", "-p", "ALL"})
	for _, s := range []string{"r_await", "ReadIOs", "TimeInQueue", "Notes (interval", "no-flush-fields"} {
		if !strings.Contains(stdout.String(), s) {
			t.Errorf("no %q in\n%s", s, stdout.String())
		}
	}
}

// TestIostatSysstatCases runs "stortest iostat" over each recorded case
// of iostat/testdata/sysstat/cases (samples of sysstat's own test suite)
// and requires the output sysstat 12.6's iostat printed there, byte for
// byte but for the host's banner and times. The iostat package's
// TestSysstatCases checks the recordings against the installed sysstat.
func TestIostatSysstatCases(t *testing.T) {
	testenv.RequireRoot(t) // the recorded samples' device nodes are made with mknod
	dir := filepath.Join("..", "..", "iostat", "testdata", "sysstat")
	cases, err := replay.ReadCases(filepath.Join(dir, "cases"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		// Sequential: the samples are stepped through iostatWait, and
		// the environment differs from case to case.
		t.Run(c.Name, func(t *testing.T) {
			tree, err := replay.NewTree(t.TempDir(), c.Roots)
			if err != nil {
				t.Fatal(err)
			}
			t.Setenv("S_TIME_FORMAT", "")
			os.Unsetenv("POSIXLY_CORRECT")
			for _, kv := range c.Env {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			iostatWait = func(ctx context.Context) error {
				_, err := tree.Next()
				return err
			}
			defer func() { iostatWait = nil }()
			args := append([]string{"iostat", "--proc", tree.Proc(), "--sys", tree.Sys(), "--dev", tree.Dev()}, c.ArgsIn(tree.Dir)...)
			stdout := runOK(t, args)
			want, err := os.ReadFile(filepath.Join(dir, "want", c.Name))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(replay.Normalize(stdout.Bytes()))); diff != "" {
				t.Errorf("stortest iostat %s (cases line %d) differs from sysstat 12.6 (-sysstat +stortest):\n%s",
					strings.Join(c.Args, " "), c.Line, diff)
			}
		})
	}
}
