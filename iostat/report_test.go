package iostat

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

var testHost = Host{Nodename: `node"1`, Sysname: "Linux", Release: "6.18", Machine: "x86_64", CPUs: 4,
	Date: time.Date(2026, 3, 9, 0, 0, 0, 0, time.UTC)}

func TestJSONWriterDocument(t *testing.T) {
	d := NewDelta(snap(100, disk("sda", IOStats{ReadIOs: 1})), snap(200, disk("sda", IOStats{ReadIOs: 101, ReadSectors: 800})))
	at := time.Date(2026, 3, 9, 13, 4, 5, 0, time.FixedZone("", 3600))
	tests := []struct {
		name   string
		opt    ReportOptions
		writes int
		want   []string // substrings
		absent []string
	}{
		{"no statistics", ReportOptions{}, 0, []string{"\"statistics\": [\n\t\t\t]\n\t\t}\n\t]\n}}\n"}, []string{"disk"}},
		{"timestamp C locale", ReportOptions{Extended: true, Timestamp: true}, 1,
			[]string{`"date": "03/09/26"`, "\t\t\t\t{\n\t\t\t\t\t\"timestamp\": \"03/09/26 13:04:05\",\n\t\t\t\t\t\"disk\": [\n", `"r/s": 100.00`, `"rkB/s": 400.00`, `"nodename": "node\"1"`}, nil},
		{"timestamp ISO", ReportOptions{Timestamp: true, ISO: true}, 1,
			[]string{`"date": "2026-03-09"`, `"timestamp": "2026-03-09T13:04:05+0100"`, `"tps": 100.00`, `"kB_read": 400`}, []string{`"r/s"`}},
		{"two statistics", ReportOptions{Extended: true}, 2, []string{"\t\t\t\t},\n\t\t\t\t{\n"}, nil},
		{"idle omitted", ReportOptions{Extended: true, OmitIdle: true}, 1, []string{"\"disk\": [\n\n\t\t\t\t\t]"}, []string{"sda"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewJSONWriter(&buf, testHost, tc.opt)
			dd := d
			if tc.opt.OmitIdle {
				dd = NewDelta(snap(100, disk("sda", IOStats{ReadIOs: 1})), snap(200, disk("sda", IOStats{ReadIOs: 1})))
			}
			for i := 0; i < tc.writes; i++ {
				if err := w.Write(dd, at); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if err := w.Write(d, at); err == nil {
				t.Error("Write after Close: no error")
			}
			out := buf.String()
			if !json.Valid(buf.Bytes()) {
				t.Fatalf("not JSON:\n%s", out)
			}
			for _, s := range tc.want {
				if !strings.Contains(out, s) {
					t.Errorf("missing %q in\n%s", s, out)
				}
			}
			for _, s := range tc.absent {
				if strings.Contains(out, s) {
					t.Errorf("unexpected %q in\n%s", s, out)
				}
			}
		})
	}
}

func TestTextWriterTimestampAndWidths(t *testing.T) {
	long := "nvme10n1p12345" // longer than the 13-column name field
	d := NewDelta(snap(100, disk(long, IOStats{ReadIOs: 1})), snap(200, disk(long, IOStats{ReadIOs: 123456790, IOTicks: 2000})))
	var buf bytes.Buffer
	w := NewTextWriter(&buf, testHost, ReportOptions{Extended: true, Timestamp: true})
	if err := w.Write(d, time.Date(2026, 3, 9, 1, 2, 3, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	want := []string{
		"Linux 6.18 (node\"1) \t03/09/26 \t_x86_64_\t(4 CPU)",
		"",
		"03/09/26 01:02:03",
		"Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz" +
			"     w/s     wkB/s   wrqm/s  %wrqm w_await wareq-sz" +
			"     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz" +
			"     f/s f_await  aqu-sz  %util",
	}
	for i, l := range want {
		if lines[i] != l {
			t.Errorf("line %d: %q, want %q", i, lines[i], l)
		}
	}
	row := lines[4]
	if !strings.HasPrefix(row, long+" 123456789.00") {
		t.Errorf("row %q: a long name and a wide value push the columns, as printf does", row)
	}
	if !strings.HasSuffix(row, " 200.00") {
		t.Errorf("row %q: %%util 200.00 uncapped, as sysstat prints it", row)
	}
	if !strings.HasSuffix(buf.String(), "\n\n\n") {
		t.Errorf("a report ends with a blank line and one more newline, as sysstat's does")
	}
}

func TestShown(t *testing.T) {
	zero := DiskDelta{Curr: IOStats{Fields: 17}}
	active := DiskDelta{Curr: IOStats{FlushIOs: 1, Fields: 17}}
	idle := DiskDelta{Curr: IOStats{ReadIOs: 5, Fields: 17}, Prev: IOStats{ReadIOs: 5, Fields: 17}}
	oldPart := DiskDelta{Curr: IOStats{ReadIOs: 5, Fields: 4}, Diff: IOStats{ReadIOs: 5}}
	tests := []struct {
		name string
		opt  ReportOptions
		dd   DiskDelta
		want bool
	}{
		{"never used, hidden by default", ReportOptions{}, zero, false},
		{"never used, shown with all devices", ReportOptions{AllDevices: true}, zero, true},
		{"flushes only count as use", ReportOptions{}, active, true},
		{"idle in the interval, shown", ReportOptions{}, idle, true},
		{"idle in the interval, omitted with -z", ReportOptions{OmitIdle: true}, idle, false},
		{"old partition in the basic report", ReportOptions{}, oldPart, true},
		{"old partition left out of -x", ReportOptions{Extended: true}, oldPart, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.opt.Shown(tc.dd); got != tc.want {
				t.Errorf("Shown = %v, want %v", got, tc.want)
			}
		})
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWritersReportWriteErrors(t *testing.T) {
	d := NewDelta(Zero, snap(100, disk("sda", IOStats{ReadIOs: 1})))
	if err := NewJSONWriter(failWriter{}, testHost, ReportOptions{}).Write(d, time.Time{}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("JSON: %v", err)
	}
	if err := NewTextWriter(failWriter{}, testHost, ReportOptions{}).Write(d, time.Time{}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("text: %v", err)
	}
}

func TestLocalHost(t *testing.T) {
	h, err := LocalHost(DefaultFS(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if h.Sysname != "Linux" || h.Release == "" || h.Machine == "" || h.CPUs < 1 {
		t.Errorf("LocalHost = %+v", h)
	}
}

func TestFSErrors(t *testing.T) {
	if _, err := NewFS("/nonexistent-proc", "/sys"); err == nil {
		t.Error("missing proc root accepted")
	}
	if _, err := NewFS("/proc/uptime", "/sys"); err == nil {
		t.Error("a file as proc root accepted")
	}
	f := dirFS(t, t.TempDir())
	if _, err := f.Snapshot(FromDiskstats); err == nil {
		t.Error("snapshot without uptime: no error")
	}
	if _, err := f.BlockStat("sda"); !errors.Is(err, ErrNoDevice) {
		t.Errorf("BlockStat of a missing device: %v, want ErrNoDevice", err)
	}
	if err := os.WriteFile(f.ProcPath("uptime"), []byte("1.00 1.00\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Snapshot(Source(9)); err == nil || !strings.Contains(err.Error(), "unknown source") {
		t.Error("unknown source accepted")
	}
	if FromSysBlock.String() != "sysblock" || Source(9).String() != "Source(9)" {
		t.Error("Source.String")
	}
}

func TestWriteCounters(t *testing.T) {
	d := NewDelta(snap(100, disk("sda", IOStats{ReadIOs: 1, Fields: 15})), snap(200, disk("sda", IOStats{ReadIOs: 8, TimeInQueue: 42, Fields: 15})))
	var buf bytes.Buffer
	if err := WriteCounters(&buf, d, ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	head, row := strings.Fields(lines[0]), strings.Fields(lines[1])
	if len(head) != len(row) || head[1] != "ReadIOs" || row[1] != "7" || head[11] != "TimeInQueue" || row[11] != "42" || row[len(row)-1] != "15" {
		t.Errorf("table:\n%s", buf.String())
	}
	if !strings.Contains(buf.String(), "sda: no-flush-fields: kernel gives 15 counters") {
		t.Errorf("notes missing:\n%s", buf.String())
	}
}

// TestJSONWriterEmptyGroup: a group that never had a device is left out
// of the extended report as sysstat leaves it out, without the comma
// 12.6 prints in its place, so the document stays JSON.
func TestJSONWriterEmptyGroup(t *testing.T) {
	dd := NewDelta(Zero, snap(100, disk("sda", IOStats{ReadIOs: 1}))).Disks[0]
	var buf bytes.Buffer
	w := NewJSONWriter(&buf, testHost, ReportOptions{Extended: true})
	r := Report{Disks: []Row{{Name: " empty", Group: true}, {Name: "sda", DiskDelta: dd}, {Name: " total", Group: true, Members: 1, DiskDelta: dd}}}
	if err := w.WriteReport(r); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(buf.Bytes()) || strings.Contains(buf.String(), " empty") || !strings.Contains(buf.String(), `" total"`) {
		t.Errorf("document:\n%s", buf.String())
	}
}
