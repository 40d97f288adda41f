package iostat

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"stortest.dev/internal/enum"
)

// Host is the banner sysstat prints once at the top of a report.
type Host struct {
	Nodename, Sysname, Release, Machine string
	CPUs                                int
	// Date is the report's date; printed as sysstat does in the C
	// locale ("%x": MM/DD/YY), or YYYY-MM-DD with ReportOptions.ISO.
	Date time.Time
}

// LocalHost describes the running system as sysstat does: uname(2), and
// the number of cpuN directories under <sys>/devices/system/cpu, or else
// the highest cpuN of <proc>/stat plus one (the number of CPUs Go may use
// when neither can be read).
func LocalHost(f FS, now time.Time) (Host, error) {
	var u syscall.Utsname
	if err := syscall.Uname(&u); err != nil {
		return Host{}, fmt.Errorf("iostat: uname: %w", err)
	}
	h := Host{
		Nodename: utsString(u.Nodename[:]), Sysname: utsString(u.Sysname[:]),
		Release: utsString(u.Release[:]), Machine: utsString(u.Machine[:]),
		CPUs: countCPUs(f), Date: now,
	}
	return h, nil
}

func utsString(b []int8) string {
	var sb strings.Builder
	for _, c := range b {
		if c == 0 {
			break
		}
		sb.WriteByte(byte(c))
	}
	return sb.String()
}

func countCPUs(f FS) int {
	ents, err := os.ReadDir(f.SysPath("devices", "system", "cpu"))
	n := 0
	if err == nil {
		for _, e := range ents {
			name := e.Name()
			if len(name) > 3 && strings.HasPrefix(name, "cpu") && name[3] >= '0' && name[3] <= '9' {
				if st, err := os.Stat(filepath.Join(f.SysPath("devices", "system", "cpu"), name)); err == nil && st.IsDir() {
					n++
				}
			}
		}
	}
	if n > 0 {
		return n
	}
	b, err := os.ReadFile(f.ProcPath("stat"))
	if err != nil {
		return runtime.NumCPU()
	}
	highest := -1
	for _, line := range strings.Split(string(b), "\n") {
		var k int
		if strings.HasPrefix(line, "cpu") && !strings.HasPrefix(line, "cpu ") {
			if _, err := fmt.Sscanf(line[3:], "%d", &k); err == nil && k > highest {
				highest = k
			}
		}
	}
	return highest + 1
}

// ReportOptions choose what a report shows and how, after sysstat's
// flags. The zero value is iostat -d: the basic device figures in kB.
type ReportOptions struct {
	// Extended: the -x figures (Ext); otherwise the basic ones (Basic).
	Extended bool
	// AllDevices lists devices that never completed an I/O since boot.
	// sysstat lists them with -p ALL or named devices and hides them
	// otherwise. Used by Write (a Monitor's reports are filtered by the
	// Monitor).
	AllDevices bool
	// OmitIdle leaves out devices with no I/O in the interval (-z).
	// Used by Write, as AllDevices.
	OmitIdle bool
	// Timestamp prints each report's time (-t).
	Timestamp bool
	// ISO prints dates and times in ISO 8601 (S_TIME_FORMAT=ISO).
	ISO bool
	// CPU prints the avg-cpu report (iostat's default, and -c).
	CPU bool
	// NoDisk leaves the device report out (iostat -c without -d).
	NoDisk bool
	// Short prints the short form of either device report (-s).
	Short bool
	// Unit of sizes: kB by default, MB (-m), or the 512-byte blocks
	// sysstat uses by default under POSIXLY_CORRECT.
	Unit Unit
	// Human prints sizes with a unit suffix (k, M, G, ...) and
	// percentages with a % sign (--human, -h). Plain reports only.
	Human bool
	// Pretty puts the device name last (--pretty, -h, -j) and, with
	// Extended, splits the figures into four tables (reads, writes,
	// discards, flushes and the rest) unless Compact or Short.
	Pretty bool
	// Compact keeps a Pretty extended report in one table (--compact).
	Compact bool
	// Decimals after the point in plain reports (--dec).
	Decimals Decimals
}

// Unit is the unit of sizes in a report.
type Unit int

const (
	// UnitKB: kilobytes (1024 bytes), sysstat's default and -k.
	UnitKB Unit = iota
	// UnitMB: megabytes (-m).
	UnitMB
	// UnitBlocks: 512-byte sectors, sysstat's default when the
	// POSIXLY_CORRECT environment variable is set ("Blk_read/s",
	// "rsec/s").
	UnitBlocks
)

var unitNames = [...]string{UnitKB: "kB", UnitMB: "MB", UnitBlocks: "blocks"}

func (u Unit) String() string { return enum.Name(unitNames[:], u, "Unit") }

// sectorsPer is sysstat's conversion factor: 512-byte sectors per unit.
func (u Unit) sectorsPer() float64 {
	switch u {
	case UnitMB:
		return 2048
	case UnitBlocks:
		return 1
	}
	return 2
}

// label is the unit in headers: "kB", "MB", and for blocks "sec" in the
// extended report and "Blk" in the basic one.
func (u Unit) label(extended bool) string {
	switch {
	case u == UnitMB:
		return "MB"
	case u == UnitBlocks && extended:
		return "sec"
	case u == UnitBlocks:
		return "Blk"
	}
	return "kB"
}

// Decimals is the --dec option of sysstat: the digits after the point of
// plain figures.
type Decimals int

const (
	// DecDefault is sysstat's: two digits, one with a unit suffix.
	DecDefault Decimals = iota
	// Dec0, Dec1 and Dec2 are --dec=0, --dec=1 and --dec=2.
	Dec0
	Dec1
	Dec2
)

// places is sysstat's dplaces_nr: -1 by default, else 0 to 2.
func (d Decimals) places() int {
	if d <= DecDefault || d > Dec2 {
		return -1
	}
	return int(d - Dec0)
}

// Shown reports whether a device's line appears in a report with these
// options, by sysstat's rules.
func (o ReportOptions) Shown(d DiskDelta) bool {
	if o.Extended && d.Curr.Fields == FieldsPartOld {
		return false // no extended counters
	}
	c, df := d.Curr, d.Diff
	if !o.AllDevices && c.ReadIOs == 0 && c.WriteIOs == 0 && c.DiscardIOs == 0 && c.FlushIOs == 0 {
		return false
	}
	if o.OmitIdle && df.ReadIOs == 0 && df.WriteIOs == 0 && df.DiscardIOs == 0 && df.FlushIOs == 0 {
		return false
	}
	return true
}

func (o ReportOptions) date(t time.Time) string {
	if o.ISO {
		return t.Format("2006-01-02")
	}
	return t.Format("01/02/06")
}

func (o ReportOptions) timestamp(t time.Time) string {
	if o.ISO {
		return t.Format("2006-01-02T15:04:05-0700")
	}
	return t.Format("01/02/06 15:04:05")
}

// Report is one report of iostat: what an interval shows.
type Report struct {
	// Time is when the sample was read, printed with -t.
	Time time.Time
	// Interval in hundredths of a second.
	Interval uint64
	// CPU is the avg-cpu report; nil when the CPU was not read.
	CPU *AvgCPU
	// Disks are the device lines in the order printed.
	Disks []Row
	// Notes on the sample: lines skipped, named devices not found,
	// the uptime running backwards. Rows carry their own.
	Notes []Note
}

// Row is one line of the device report: a device, or the total of a
// group of devices (-g).
type Row struct {
	// Name as printed: the kernel's name, a device-mapper name (-N), a
	// persistent one (-j), or a group's name after a space as sysstat
	// prints it (" total").
	Name string
	// Group marks a group's total. Members is what sysstat 12.6 divides
	// its %util by: the members counted over every sample so far, not
	// in this one; 0 for a group that never had one, which the extended
	// report leaves out.
	Group   bool
	Members int
	DiskDelta
}

// Ext is the row's extended figures; a group's %util is divided by its
// Members, as sysstat divides it.
func (r Row) Ext() Ext {
	e := r.DiskDelta.Ext()
	e.Util /= r.utilDivisor()
	return e
}

func (r Row) utilDivisor() float64 {
	if r.Group && r.Members > 0 {
		return float64(r.Members)
	}
	return 1
}

// ReportOf turns a delta into a report: the devices o shows (Shown), by
// their kernel names, stamped with at.
func ReportOf(d Delta, o ReportOptions, at time.Time) Report {
	r := Report{Time: at, Interval: d.Interval, CPU: d.CPU, Notes: d.Notes}
	for _, dd := range d.Disks {
		if o.Shown(dd) {
			r.Disks = append(r.Disks, Row{Name: dd.Name, DiskDelta: dd})
		}
	}
	return r
}

// JSONWriter writes sysstat's JSON schema (iostat -o JSON, 12.6) byte for
// byte: the same keys, order, tabs and two decimals.
type JSONWriter struct {
	w      *bufio.Writer
	h      Host
	o      ReportOptions
	n      int // statistics written
	began  bool
	closed bool
	buf    []byte
}

// NewJSONWriter returns a writer of one JSON document; call Close to end
// it.
func NewJSONWriter(w io.Writer, h Host, o ReportOptions) *JSONWriter {
	return &JSONWriter{w: bufio.NewWriter(w), h: h, o: o}
}

func (j *JSONWriter) begin() {
	if j.began {
		return
	}
	j.began = true
	fmt.Fprintf(j.w, "{\"sysstat\": {\n\t\"hosts\": [\n\t\t{\n")
	fmt.Fprintf(j.w, "\t\t\t\"nodename\": %s,\n", jsonString(j.h.Nodename))
	fmt.Fprintf(j.w, "\t\t\t\"sysname\": %s,\n", jsonString(j.h.Sysname))
	fmt.Fprintf(j.w, "\t\t\t\"release\": %s,\n", jsonString(j.h.Release))
	fmt.Fprintf(j.w, "\t\t\t\"machine\": %s,\n", jsonString(j.h.Machine))
	fmt.Fprintf(j.w, "\t\t\t\"number-of-cpus\": %d,\n", j.h.CPUs)
	fmt.Fprintf(j.w, "\t\t\t\"date\": %s,\n", jsonString(j.o.date(j.h.Date)))
	fmt.Fprintf(j.w, "\t\t\t\"statistics\": [\n")
}

// Write adds one report (one element of "statistics") for d, stamped
// with at when ReportOptions.Timestamp is set, and flushes it. A delta
// with CPU figures gets its avg-cpu report too, as iostat prints both.
func (j *JSONWriter) Write(d Delta, at time.Time) error {
	if d.CPU != nil && !j.o.CPU {
		o := j.o
		defer func() { j.o = o }()
		j.o.CPU = true
	}
	return j.WriteReport(ReportOf(d, j.o, at))
}

// WriteReport adds one report and flushes it.
func (j *JSONWriter) WriteReport(r Report) error {
	if j.closed {
		return fmt.Errorf("iostat: JSONWriter: write after Close")
	}
	j.begin()
	if j.n > 0 {
		j.w.WriteString(",\n")
	}
	j.n++
	j.w.WriteString("\t\t\t\t{\n")
	if j.o.Timestamp {
		fmt.Fprintf(j.w, "\t\t\t\t\t\"timestamp\": %s,\n", jsonString(j.o.timestamp(r.Time)))
	}
	if j.o.CPU {
		c := r.CPU
		if c == nil {
			c = &AvgCPU{}
		}
		fmt.Fprintf(j.w, "\t\t\t\t\t\"avg-cpu\":  {\"user\": %.2f, \"nice\": %.2f, \"system\": %.2f, \"iowait\": %.2f, \"steal\": %.2f, \"idle\": %.2f}",
			c.User, c.Nice, c.System, c.IOWait, c.Steal, c.Idle)
		if !j.o.NoDisk {
			j.w.WriteString(",")
		}
		j.w.WriteString("\n")
	}
	if !j.o.NoDisk {
		j.w.WriteString("\t\t\t\t\t\"disk\": [\n")
		first := true
		for _, row := range r.Disks {
			if j.o.Extended && row.Group && row.Members == 0 {
				// Left out as sysstat leaves it out, but without
				// the comma 12.6 prints for it, which breaks the JSON.
				continue
			}
			if !first {
				j.w.WriteString(",\n")
			}
			first = false
			j.buf = j.appendDisk(j.buf[:0], row)
			j.w.Write(j.buf)
		}
		j.w.WriteString("\n\t\t\t\t\t]\n")
	}
	j.w.WriteString("\t\t\t\t}")
	return j.flush()
}

// Skip stands for a report iostat reads but does not print (the first
// one, with -y): sysstat 12.6 prints an empty line in its place.
func (j *JSONWriter) Skip() error {
	j.begin()
	j.w.WriteString("\n")
	return j.flush()
}

func (j *JSONWriter) flush() error {
	if err := j.w.Flush(); err != nil {
		return fmt.Errorf("iostat: write JSON: %w", err)
	}
	return nil
}

func appendKV(b []byte, key string, v float64) []byte {
	b = append(b, ", \""...)
	b = append(b, key...)
	b = append(b, "\": "...)
	return strconv.AppendFloat(b, v, 'f', 2, 64)
}

func appendKU(b []byte, key string, v uint64) []byte {
	b = append(b, ", \""...)
	b = append(b, key...)
	b = append(b, "\": "...)
	return strconv.AppendUint(b, v, 10)
}

func (j *JSONWriter) appendDisk(b []byte, row Row) []byte {
	b = append(b, "\t\t\t\t\t\t{\"disk_device\": "...)
	b = append(b, jsonString(row.Name)...)
	f := figuresOf(row, j.o.Unit)
	u := j.o.Unit.label(j.o.Extended)
	switch {
	case j.o.Extended && j.o.Short:
		for _, kv := range []struct {
			k string
			v float64
		}{
			{"tps", f.tps}, {u + "/s", f.sec / f.fctr}, {"rqm/s", f.rqm}, {"await", f.await},
			{"areq-sz", f.areq / 2}, {"aqu-sz", f.aqu}, {"util", f.util},
		} {
			b = appendKV(b, kv.k, kv.v)
		}
	case j.o.Extended:
		for _, kv := range []struct {
			k string
			v float64
		}{
			{"r/s", f.rps}, {"w/s", f.wps}, {"d/s", f.dps}, {"f/s", f.fps},
			{"r" + u + "/s", f.rsec / f.fctr}, {"w" + u + "/s", f.wsec / f.fctr}, {"d" + u + "/s", f.dsec / f.fctr},
			{"rrqm/s", f.rrqm}, {"wrqm/s", f.wrqm}, {"drqm/s", f.drqm},
			{"rrqm", f.rrqmPct}, {"wrqm", f.wrqmPct}, {"drqm", f.drqmPct},
			{"r_await", f.rAwait}, {"w_await", f.wAwait}, {"d_await", f.dAwait}, {"f_await", f.fAwait},
			{"rareq-sz", f.rareq / 2}, {"wareq-sz", f.wareq / 2}, {"dareq-sz", f.dareq / 2},
			{"aqu-sz", f.aqu}, {"util", f.util},
		} {
			b = appendKV(b, kv.k, kv.v)
		}
	default:
		b = appendKV(b, "tps", f.tps)
		b = appendKV(b, u+"_read/s", f.rsec/f.fctr)
		b = appendKV(b, u+"_wrtn/s", f.wsec/f.fctr)
		b = appendKV(b, u+"_dscd/s", f.dsec/f.fctr)
		b = appendKU(b, u+"_read", f.rdSec/uint64(f.fctr))
		b = appendKU(b, u+"_wrtn", f.wrSec/uint64(f.fctr))
		b = appendKU(b, u+"_dscd", f.dcSec/uint64(f.fctr))
	}
	return append(b, '}')
}

// Close ends the document.
func (j *JSONWriter) Close() error {
	if j.closed {
		return nil
	}
	j.begin()
	j.closed = true
	if j.n > 0 {
		j.w.WriteString("\n")
	}
	j.w.WriteString("\t\t\t]\n\t\t}\n\t]\n}}\n")
	return j.flush()
}

// jsonString quotes s for JSON. sysstat prints names raw; for the names
// the kernel uses the two agree.
func jsonString(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&sb, "\\u%04x", r)
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// TextWriter writes reports as sysstat's plain iostat does: the same
// banner, column headers, widths and decimals.
type TextWriter struct {
	w     *bufio.Writer
	h     Host
	o     ReportOptions
	began bool
}

// NewTextWriter returns a writer of plain reports.
func NewTextWriter(w io.Writer, h Host, o ReportOptions) *TextWriter {
	return &TextWriter{w: bufio.NewWriter(w), h: h, o: o}
}

// cpuHeader is the avg-cpu report's header. The device reports' headers
// come from their column tables (format.go).
const cpuHeader = "avg-cpu:  %user   %nice %system %iowait  %steal   %idle"

func (t *TextWriter) begin() {
	if !t.began {
		t.began = true
		fmt.Fprintf(t.w, "%s %s (%s) \t%s \t_%s_\t(%d CPU)\n\n",
			t.h.Sysname, t.h.Release, t.h.Nodename, t.o.date(t.h.Date), t.h.Machine, t.h.CPUs)
	}
}

// Write prints one report for d, with at above it when
// ReportOptions.Timestamp is set. A delta with CPU figures gets its
// avg-cpu report too, as iostat prints both.
func (t *TextWriter) Write(d Delta, at time.Time) error {
	if d.CPU != nil && !t.o.CPU {
		o := t.o
		defer func() { t.o = o }()
		t.o.CPU = true
	}
	return t.WriteReport(ReportOf(d, t.o, at))
}

// WriteReport prints one report.
func (t *TextWriter) WriteReport(r Report) error {
	t.begin()
	p := printer{b: make([]byte, 0, 512), dec: t.o.Decimals.places()}
	if t.o.Timestamp {
		p.b = append(p.b, t.o.timestamp(r.Time)...)
		p.b = append(p.b, '\n')
	}
	if t.o.CPU {
		c := r.CPU
		if c == nil {
			c = &AvgCPU{}
		}
		p.b = append(p.b, cpuHeader+"\n       "...)
		for _, v := range []float64{c.User, c.Nice, c.System, c.IOWait, c.Steal, c.Idle} {
			p.pc(t.o.Human, 7, v)
		}
		p.b = append(p.b, "\n\n"...)
	}
	if !t.o.NoDisk {
		parts := [][]column{t.o.columns()}
		if t.o.Pretty && t.o.Extended && !t.o.Short && !t.o.Compact {
			parts = extParts
		}
		for i, cols := range parts {
			if i > 0 {
				p.b = append(p.b, '\n')
			}
			p.header(t.o, cols)
			for _, row := range r.Disks {
				if t.o.Extended && row.Group && row.Members == 0 {
					continue // sysstat leaves out a group that never had a device
				}
				p.row(t.o, cols, row)
			}
		}
	}
	p.b = append(p.b, "\n\n"...)
	t.w.Write(p.b)
	return t.flush()
}

// Skip stands for a report iostat reads but does not print (the first
// one, with -y): sysstat 12.6 prints an empty line in its place.
func (t *TextWriter) Skip() error {
	t.begin()
	t.w.WriteString("\n")
	return t.flush()
}

// Begin prints the banner, which a report is otherwise preceded by.
func (t *TextWriter) Begin() error {
	t.begin()
	return t.flush()
}

func (t *TextWriter) flush() error {
	if err := t.w.Flush(); err != nil {
		return fmt.Errorf("iostat: write text: %w", err)
	}
	return nil
}

// WriteCounters prints, for each device a report with these options
// shows, the raw counters over the interval (DiskDelta.Diff) under the
// kernel's names, then every note on the delta. It is the companion of a
// sysstat report: the figures there are derived from these.
func WriteCounters(w io.Writer, d Delta, o ReportOptions) error {
	return WriteReportCounters(w, ReportOf(d, o, time.Time{}))
}

// WriteReportCounters is WriteCounters for a report's rows.
func WriteReportCounters(w io.Writer, r Report) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%-13s", "Device")
	for _, n := range counterNames {
		fmt.Fprintf(bw, " %*s", max(len(n), 10), n)
	}
	fmt.Fprintf(bw, " %6s\n", "Fields")
	var notes []string
	for _, n := range r.Notes {
		notes = append(notes, n.String())
	}
	for _, row := range r.Disks {
		fmt.Fprintf(bw, "%-13s", row.Name)
		p := row.Diff.ptrs()
		for i, n := range counterNames {
			fmt.Fprintf(bw, " %*d", max(len(n), 10), *p[i])
		}
		fmt.Fprintf(bw, " %6d\n", row.Diff.Fields)
		for _, n := range row.Notes {
			notes = append(notes, strings.TrimSpace(row.Name)+": "+n.String())
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(bw, "\nNotes (interval %d.%02d s):\n", r.Interval/100, r.Interval%100)
		for _, n := range notes {
			fmt.Fprintf(bw, "  %s\n", n)
		}
	}
	bw.WriteString("\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("iostat: write counters: %w", err)
	}
	return nil
}
