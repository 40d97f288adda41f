package iostat

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/internal/testenv"
)

// These tests run sysstat's iostat and this package on the same counters
// and require the same output, byte for byte. iostat reads the counters
// from a fixture directory given with -f (/proc/diskstats becomes
// DIR/diskstats with -p ALL, /sys/block becomes DIR/block without it)
// and its clock, /proc/uptime, from a fixture file bind-mounted over it
// in a private mount namespace that dies with the process.

// sysstatCmd returns iostat with args, run in a private mount namespace
// where uptimeFile stands in for /proc/uptime.
// With -t and the word ISO among args, S_TIME_FORMAT=ISO is set instead.
func sysstatCmd(t *testing.T, uptimeFile string, args ...string) *exec.Cmd {
	t.Helper()
	testenv.RequireRoot(t, "iostat", "unshare", "mount")
	script := `mount --bind "$0" /proc/uptime && exec iostat "$@"`
	cmd := exec.Command("unshare", append([]string{"--mount", "--propagation", "private", "sh", "-c", script, uptimeFile}, args...)...)
	// The C locale fixes sysstat's %x dates; no colours, kB units.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C", "S_COLORS=never"}
	if i := slices.Index(cmd.Args, "ISO"); i >= 0 {
		cmd.Args = slices.Delete(cmd.Args, i, i+1)
		cmd.Env = append(cmd.Env, "S_TIME_FORMAT=ISO")
	}
	return cmd
}

func runSysstat(t *testing.T, uptimeFile string, args ...string) []byte {
	t.Helper()
	cmd := sysstatCmd(t, uptimeFile, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args, err, stderr.Bytes())
	}
	return out
}

// fixtureDirs copies a diskstats and an uptime fixture into a fresh
// proc directory; sysstat's -f directory and this package's proc root are
// the same directory.
func fixtureDirs(t *testing.T, diskstats, uptime string) (dir string) {
	t.Helper()
	dir = t.TempDir()
	copyFile(t, diskstats, filepath.Join(dir, "diskstats"))
	copyFile(t, uptime, filepath.Join(dir, "uptime"))
	return dir
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	// Write a new file and rename it, so a reader sees the old or the
	// new content, never a torn one.
	tmp := to + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, to); err != nil {
		t.Fatal(err)
	}
}

// hostFromSysstat takes the banner of sysstat's JSON so ours can match
// it byte for byte.
func hostFromSysstat(t *testing.T, js []byte) Host {
	t.Helper()
	var doc struct {
		Sysstat struct {
			Hosts []struct {
				Nodename, Sysname, Release, Machine, Date string
				CPUs                                      int `json:"number-of-cpus"`
			}
		}
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatalf("sysstat JSON: %v\n%s", err, js)
	}
	h := doc.Sysstat.Hosts[0]
	date, err := parseSysstatDate(h.Date)
	if err != nil {
		t.Fatal(err)
	}
	return Host{Nodename: h.Nodename, Sysname: h.Sysname, Release: h.Release, Machine: h.Machine, CPUs: h.CPUs, Date: date}
}

// hostFromBanner reads the first line of a plain report.
func hostFromBanner(t *testing.T, txt []byte) Host {
	t.Helper()
	line, _, _ := bytes.Cut(txt, []byte("\n"))
	var h Host
	var date, machine string
	// "Linux 6.18.44 (vm) \t11/21/26 \t_x86_64_\t(2 CPU)"
	parts := strings.Split(string(line), "\t")
	if len(parts) != 4 {
		t.Fatalf("banner %q", line)
	}
	if _, err := fmt.Sscanf(parts[0], "%s %s (%s", &h.Sysname, &h.Release, &h.Nodename); err != nil {
		t.Fatalf("banner %q: %v", line, err)
	}
	h.Nodename = strings.TrimSuffix(h.Nodename, ")")
	date = strings.TrimSpace(parts[1])
	machine = strings.Trim(parts[2], "_")
	h.Machine = machine
	fmt.Sscanf(parts[3], "(%d CPU)", &h.CPUs)
	var err error
	if h.Date, err = parseSysstatDate(date); err != nil {
		t.Fatal(err)
	}
	return h
}

// fieldAgreement compares every number of two sysstat JSON documents as
// printed (two decimals) and returns how many agree out of how many.
func fieldAgreement(t *testing.T, want, got []byte) (agree, total int) {
	t.Helper()
	type doc struct {
		Sysstat struct {
			Hosts []struct {
				Statistics []struct {
					Disk []map[string]any
				}
			}
		}
	}
	parse := func(b []byte) doc {
		var d doc
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&d); err != nil {
			t.Fatalf("decode: %v\n%s", err, b)
		}
		return d
	}
	w, g := parse(want), parse(got)
	ws, gs := w.Sysstat.Hosts[0].Statistics, g.Sysstat.Hosts[0].Statistics
	if len(ws) != len(gs) {
		t.Fatalf("%d statistics from sysstat, %d from us", len(ws), len(gs))
	}
	for i := range ws {
		if len(ws[i].Disk) != len(gs[i].Disk) {
			t.Fatalf("statistics %d: %d disks from sysstat, %d from us", i, len(ws[i].Disk), len(gs[i].Disk))
		}
		for j, wd := range ws[i].Disk {
			for k, wv := range wd {
				total++
				if gs[i].Disk[j][k] == wv {
					agree++
				} else {
					t.Errorf("statistics %d disk %s %q: sysstat %s, us %s", i, wd["disk_device"], k, wv, gs[i].Disk[j][k])
				}
			}
			if len(wd) != len(gs[i].Disk[j]) {
				t.Errorf("statistics %d disk %s: sysstat has %d keys, we have %d", i, wd["disk_device"], len(wd), len(gs[i].Disk[j]))
			}
		}
	}
	return agree, total
}

func TestSysstatFirstReport(t *testing.T) {
	// mixed: sysstat's own fixture (a 17-field line among 18-field ones),
	// with lines of 23, 16, 10 and 4 fields added.
	fixtures := []string{"k20", "k18", "k14", "k7", "mixed"}
	modes := []struct {
		name string
		args []string
		opt  ReportOptions
		json bool
	}{
		{"x-json", []string{"-d", "-x", "-o", "JSON", "-p", "ALL"}, ReportOptions{Extended: true, AllDevices: true}, true},
		{"x-text", []string{"-d", "-x", "-p", "ALL"}, ReportOptions{Extended: true, AllDevices: true}, false},
		{"basic-json", []string{"-d", "-o", "JSON", "-p", "ALL"}, ReportOptions{AllDevices: true}, true},
		{"basic-text", []string{"-d", "-p", "ALL"}, ReportOptions{AllDevices: true}, false},
		{"x-z-json", []string{"-d", "-x", "-z", "-o", "JSON", "-p", "ALL"}, ReportOptions{Extended: true, AllDevices: true, OmitIdle: true}, true},
		{"x-json-t", []string{"-d", "-x", "-t", "-o", "JSON", "-p", "ALL"}, ReportOptions{Extended: true, AllDevices: true, Timestamp: true}, true},
		{"basic-text-t-iso", []string{"-d", "-t", "ISO", "-p", "ALL"}, ReportOptions{AllDevices: true, Timestamp: true, ISO: true}, false},
	}
	for _, fx := range fixtures {
		for _, m := range modes {
			t.Run(fx+"/"+m.name, func(t *testing.T) {
				t.Parallel()
				dir := fixtureDirs(t, filepath.Join("testdata", fx, "diskstats"), filepath.Join("testdata", fx, "uptime"))
				want := runSysstat(t, filepath.Join(dir, "uptime"), append(m.args, "-f", dir)...)

				d := NewDelta(Zero, snapshotOf(t, dirFS(t, dir), FromDiskstats))
				at := sysstatTimestamp(t, want, m.opt)
				var got bytes.Buffer
				if m.json {
					w := NewJSONWriter(&got, hostFromSysstat(t, want), m.opt)
					if err := w.Write(d, at); err != nil {
						t.Fatal(err)
					}
					if err := w.Close(); err != nil {
						t.Fatal(err)
					}
					agree, total := fieldAgreement(t, want, got.Bytes())
					t.Logf("%d of %d fields agree", agree, total)
				} else {
					w := NewTextWriter(&got, hostFromBanner(t, want), m.opt)
					if err := w.Write(d, at); err != nil {
						t.Fatal(err)
					}
				}
				if diff := cmp.Diff(string(want), got.String()); diff != "" {
					t.Errorf("output differs from sysstat (-sysstat +us):\n%s", diff)
				}
			})
		}
	}
}

// TestSysstatSysBlock compares the default mode (no -p), which reads
// /sys/block/<dev>/stat, lists whole devices in name order and hides
// those that never did I/O, skipping what holds no device.
func TestSysstatSysBlock(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, filepath.Join("testdata", "k20", "uptime"), filepath.Join(dir, "uptime"))
	// A sys tree from the 18-field fixture: whole devices get
	// block/<dev>/stat (and dev), partitions block/<disk>/<part>/stat.
	ds := parseFixture(t, "k18/diskstats")
	disks := map[string]bool{"sda": true, "nvme0n1": true, "dm-0": true, "loop0": true}
	parent := map[string]string{"sda1": "sda", "sda2": "sda", "nvme0n1p1": "nvme0n1"}
	b, _ := os.ReadFile(filepath.Join("testdata", "k18", "diskstats"))
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		d := ds[i]
		p := filepath.Join(dir, "block", d.Name)
		if !disks[d.Name] {
			p = filepath.Join(dir, "block", parent[d.Name], d.Name)
		}
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(p, "stat"), []byte(strings.Join(f[3:], " ")+"\n"), 0o644)
		os.WriteFile(filepath.Join(p, "dev"), []byte(fmt.Sprintf("%d:%d\n", d.Major, d.Minor)), 0o644)
	}
	// What sysstat's own fixtures hold: a file among the devices
	// ("_list"), a stat file of 14 counters (the first 11 count) and
	// one of 7 (a device with zero counters, hidden as never used).
	if err := os.WriteFile(filepath.Join(dir, "block", "_list"), []byte(".\n..\nsda\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, stat := range map[string]string{
		"sdx": "120 3 960 40 17 2 136 9 0 45 49 4 1 64\n",
		"sdy": "120 3 960 40 17 2 136\n",
	} {
		if err := os.MkdirAll(filepath.Join(dir, "block", name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "block", name, "stat"), []byte(stat), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range []struct {
		name string
		args []string
		opt  ReportOptions
	}{
		{"x-json", []string{"-d", "-x", "-o", "JSON"}, ReportOptions{Extended: true}},
		{"basic-json", []string{"-d", "-o", "JSON"}, ReportOptions{}},
	} {
		t.Run(m.name, func(t *testing.T) {
			want := runSysstat(t, filepath.Join(dir, "uptime"), append(m.args, "-f", dir)...)
			d := NewDelta(Zero, snapshotOf(t, dirFS(t, dir), FromSysBlock))
			var got bytes.Buffer
			w := NewJSONWriter(&got, hostFromSysstat(t, want), m.opt)
			w.Write(d, time.Time{})
			w.Close()
			agree, total := fieldAgreement(t, want, got.Bytes())
			t.Logf("%d of %d fields agree", agree, total)
			if diff := cmp.Diff(string(want), got.String()); diff != "" {
				t.Errorf("(-sysstat +us):\n%s", diff)
			}
		})
	}
}

// readUntil reads r until the bytes read so far satisfy done.
func readUntil(r *bufio.Reader, buf *bytes.Buffer, done func([]byte) bool) error {
	for !done(buf.Bytes()) {
		c, err := r.ReadByte()
		if err != nil {
			return fmt.Errorf("after %q: %w", buf.Bytes(), err)
		}
		buf.WriteByte(c)
	}
	return nil
}

// TestSysstatInterval runs "iostat ... 1 2" on the first fixture of each
// pair and swaps in the second fixture while iostat sleeps between its
// reads, then compares both reports: boot to A, and A to B (wrapped
// times, reset and new devices, 64-bit counts, a backwards counter).
func TestSysstatInterval(t *testing.T) {
	pairs, err := filepath.Glob(filepath.Join("testdata", "pairs", "*"))
	if err != nil || len(pairs) == 0 {
		t.Fatalf("no pairs: %v", err)
	}
	var (
		mu                 sync.Mutex
		agreeAll, totalAll int
	)
	t.Cleanup(func() {
		if totalAll > 0 {
			t.Logf("two-sample JSON: %d of %d fields agree with sysstat", agreeAll, totalAll)
		}
	})
	for _, pair := range pairs {
		for _, js := range []bool{true, false} {
			name := filepath.Base(pair) + map[bool]string{true: "/json", false: "/text"}[js]
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				dir := fixtureDirs(t, filepath.Join(pair, "diskstats.a"), filepath.Join(pair, "uptime.a"))
				args := []string{"-d", "-x", "-p", "ALL", "-f", dir, "1", "2"}
				if js {
					args = append([]string{"-o", "JSON"}, args...)
				}
				cmd := sysstatCmd(t, filepath.Join(dir, "uptime"), args...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				stdout, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() {
					if cmd.ProcessState == nil {
						cmd.Process.Kill()
						cmd.Wait()
					}
				})
				// iostat writes unbuffered: the first report is complete
				// once its closing brace (JSON) or its blank line
				// (text) is out, and it then sleeps for a second.
				r := bufio.NewReader(stdout)
				var out bytes.Buffer
				first := func(b []byte) bool {
					if js {
						return bytes.HasSuffix(b, []byte("\t\t\t\t\t]\n\t\t\t\t}"))
					}
					i := bytes.Index(b, []byte("\nDevice"))
					return i >= 0 && bytes.HasSuffix(b[i:], []byte("\n\n"))
				}
				start := time.Now()
				if err := readUntil(r, &out, first); err != nil {
					t.Fatalf("first report: %v\n%s", err, stderr.Bytes())
				}
				// The uptime file is bind-mounted by inode: rewrite it in
				// place; diskstats is renamed over.
				up, err := os.ReadFile(filepath.Join(pair, "uptime.b"))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "uptime"), up, 0o644); err != nil {
					t.Fatal(err)
				}
				copyFile(t, filepath.Join(pair, "diskstats.b"), filepath.Join(dir, "diskstats"))
				if time.Since(start) > 700*time.Millisecond {
					t.Fatalf("swapping the fixtures took %v: iostat may have read the old ones", time.Since(start))
				}
				rest, err := io.ReadAll(r)
				if err != nil {
					t.Fatal(err)
				}
				out.Write(rest)
				if err := cmd.Wait(); err != nil {
					t.Fatalf("iostat: %v\n%s", err, stderr.Bytes())
				}
				want := out.Bytes()

				snapA := readFixtureSnapshot(t, filepath.Join(pair, "diskstats.a"), filepath.Join(pair, "uptime.a"))
				snapB := readFixtureSnapshot(t, filepath.Join(pair, "diskstats.b"), filepath.Join(pair, "uptime.b"))
				d1 := NewDelta(Zero, snapA)
				d2 := NewDelta(snapA, snapB)
				opt := ReportOptions{Extended: true, AllDevices: true}
				var got bytes.Buffer
				if js {
					w := NewJSONWriter(&got, hostFromSysstat(t, want), opt)
					w.Write(d1, time.Time{})
					w.Write(d2, time.Time{})
					w.Close()
					agree, total := fieldAgreement(t, want, got.Bytes())
					mu.Lock()
					agreeAll += agree
					totalAll += total
					mu.Unlock()
				} else {
					w := NewTextWriter(&got, hostFromBanner(t, want), opt)
					w.Write(d1, time.Time{})
					w.Write(d2, time.Time{})
				}
				if diff := cmp.Diff(string(want), got.String()); diff != "" {
					t.Errorf("(-sysstat +us):\n%s", diff)
				}
			})
		}
	}
}

func readFixtureSnapshot(t *testing.T, diskstats, uptime string) Snapshot {
	t.Helper()
	return snapshotOf(t, dirFS(t, fixtureDirs(t, diskstats, uptime)), FromDiskstats)
}

// parseSysstatDate reads a banner date: %x in the C locale, or ISO.
func parseSysstatDate(s string) (time.Time, error) {
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	return time.Parse("01/02/06", s)
}

var timestampRE = regexp.MustCompile(`(?m)^(?:\t+"timestamp": ")?(\d\d/\d\d/\d\d \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4})"?,?$`)

// sysstatTimestamp returns the time sysstat printed with -t, so ours can
// print the same; the zero time without -t.
func sysstatTimestamp(t *testing.T, out []byte, o ReportOptions) time.Time {
	t.Helper()
	if !o.Timestamp {
		return time.Time{}
	}
	m := timestampRE.FindSubmatch(out)
	if m == nil {
		t.Fatalf("no timestamp in\n%s", out)
	}
	layout := "01/02/06 15:04:05"
	if o.ISO {
		layout = "2006-01-02T15:04:05-0700"
	}
	at, err := time.ParseInLocation(layout, string(m[1]), time.Local)
	if err != nil {
		t.Fatal(err)
	}
	return at
}
