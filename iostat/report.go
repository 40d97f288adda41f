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
// the number of cpuN directories under <sys>/devices/system/cpu (the
// number of CPUs Go may use when that is unreadable).
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
	if n == 0 {
		n = runtime.NumCPU()
	}
	return n
}

// ReportOptions choose what a report shows, after sysstat's flags.
type ReportOptions struct {
	// Extended: the -x figures (Ext); otherwise the basic ones (Basic).
	Extended bool
	// AllDevices lists devices that never completed an I/O since boot.
	// sysstat lists them with -p ALL or named devices and hides them
	// otherwise.
	AllDevices bool
	// OmitIdle leaves out devices with no I/O in the interval (-z).
	OmitIdle bool
	// Timestamp prints each report's time (-t).
	Timestamp bool
	// ISO prints dates and times in ISO 8601 (S_TIME_FORMAT=ISO).
	ISO bool
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

// JSONWriter writes sysstat's JSON schema (iostat -d [-x] -o JSON, 12.6)
// byte for byte: the same keys, order, tabs and two decimals.
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
// with at when ReportOptions.Timestamp is set, and flushes it.
func (j *JSONWriter) Write(d Delta, at time.Time) error {
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
		fmt.Fprintf(j.w, "\t\t\t\t\t\"timestamp\": %s,\n", jsonString(j.o.timestamp(at)))
	}
	j.w.WriteString("\t\t\t\t\t\"disk\": [\n")
	first := true
	for _, dd := range d.Disks {
		if !j.o.Shown(dd) {
			continue
		}
		if !first {
			j.w.WriteString(",\n")
		}
		first = false
		j.buf = j.appendDisk(j.buf[:0], dd)
		j.w.Write(j.buf)
	}
	j.w.WriteString("\n\t\t\t\t\t]\n\t\t\t\t}")
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

func (j *JSONWriter) appendDisk(b []byte, dd DiskDelta) []byte {
	b = append(b, "\t\t\t\t\t\t{\"disk_device\": "...)
	b = append(b, jsonString(dd.Name)...)
	if j.o.Extended {
		e := dd.Ext()
		for _, kv := range []struct {
			k string
			v float64
		}{
			{"r/s", e.RPerS}, {"w/s", e.WPerS}, {"d/s", e.DPerS}, {"f/s", e.FPerS},
			{"rkB/s", e.RkBPerS}, {"wkB/s", e.WkBPerS}, {"dkB/s", e.DkBPerS},
			{"rrqm/s", e.RrqmPerS}, {"wrqm/s", e.WrqmPerS}, {"drqm/s", e.DrqmPerS},
			{"rrqm", e.RrqmPct}, {"wrqm", e.WrqmPct}, {"drqm", e.DrqmPct},
			{"r_await", e.RAwait}, {"w_await", e.WAwait}, {"d_await", e.DAwait}, {"f_await", e.FAwait},
			{"rareq-sz", e.RareqSz}, {"wareq-sz", e.WareqSz}, {"dareq-sz", e.DareqSz},
			{"aqu-sz", e.AquSz}, {"util", e.Util},
		} {
			b = appendKV(b, kv.k, kv.v)
		}
	} else {
		s := dd.Basic()
		b = appendKV(b, "tps", s.TPS)
		b = appendKV(b, "kB_read/s", s.KBReadPS)
		b = appendKV(b, "kB_wrtn/s", s.KBWrtnPS)
		b = appendKV(b, "kB_dscd/s", s.KBDscdPS)
		for _, kv := range []struct {
			k string
			v uint64
		}{{"kB_read", s.KBRead}, {"kB_wrtn", s.KBWrtn}, {"kB_dscd", s.KBDscd}} {
			b = append(b, ", \""...)
			b = append(b, kv.k...)
			b = append(b, "\": "...)
			b = strconv.AppendUint(b, kv.v, 10)
		}
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

// TextWriter writes reports as sysstat's plain iostat -d [-x] does: the
// same banner, column headers, widths and two decimals.
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

// Column headers of sysstat 12.6 with kB units (its default unless
// POSIXLY_CORRECT is set). Each value is printed as " %W.2f" with W the
// header's width less one.
const (
	extHeader = "Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz" +
		"     w/s     wkB/s   wrqm/s  %wrqm w_await wareq-sz" +
		"     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz" +
		"     f/s f_await  aqu-sz  %util"
	basicHeader = "Device             tps    kB_read/s    kB_wrtn/s    kB_dscd/s    kB_read    kB_wrtn    kB_dscd"
)

// Write prints one report for d, with at above it when
// ReportOptions.Timestamp is set.
func (t *TextWriter) Write(d Delta, at time.Time) error {
	if !t.began {
		t.began = true
		fmt.Fprintf(t.w, "%s %s (%s) \t%s \t_%s_\t(%d CPU)\n\n",
			t.h.Sysname, t.h.Release, t.h.Nodename, t.o.date(t.h.Date), t.h.Machine, t.h.CPUs)
	}
	if t.o.Timestamp {
		fmt.Fprintf(t.w, "%s\n", t.o.timestamp(at))
	}
	if t.o.Extended {
		t.w.WriteString(extHeader + "\n")
	} else {
		t.w.WriteString(basicHeader + "\n")
	}
	var b []byte
	for _, dd := range d.Disks {
		if !t.o.Shown(dd) {
			continue
		}
		b = appendRow(b[:0], dd, t.o.Extended)
		t.w.Write(b)
	}
	t.w.WriteString("\n\n")
	if err := t.w.Flush(); err != nil {
		return fmt.Errorf("iostat: write text: %w", err)
	}
	return nil
}

func appendCol(b []byte, width int, v float64) []byte {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	b = append(b, ' ')
	for i := len(s); i < width; i++ {
		b = append(b, ' ')
	}
	return append(b, s...)
}

func appendRow(b []byte, dd DiskDelta, extended bool) []byte {
	b = fmt.Appendf(b, "%-13s", dd.Name)
	if extended {
		e := dd.Ext()
		for _, c := range []struct {
			w int
			v float64
		}{
			{7, e.RPerS}, {9, e.RkBPerS}, {8, e.RrqmPerS}, {6, e.RrqmPct}, {7, e.RAwait}, {8, e.RareqSz},
			{7, e.WPerS}, {9, e.WkBPerS}, {8, e.WrqmPerS}, {6, e.WrqmPct}, {7, e.WAwait}, {8, e.WareqSz},
			{7, e.DPerS}, {9, e.DkBPerS}, {8, e.DrqmPerS}, {6, e.DrqmPct}, {7, e.DAwait}, {8, e.DareqSz},
			{7, e.FPerS}, {7, e.FAwait}, {7, e.AquSz}, {6, e.Util},
		} {
			b = appendCol(b, c.w, c.v)
		}
	} else {
		s := dd.Basic()
		b = appendCol(b, 8, s.TPS)
		b = appendCol(b, 12, s.KBReadPS)
		b = appendCol(b, 12, s.KBWrtnPS)
		b = appendCol(b, 12, s.KBDscdPS)
		b = fmt.Appendf(b, " %10d %10d %10d", s.KBRead, s.KBWrtn, s.KBDscd)
	}
	return append(b, '\n')
}

// WriteCounters prints, for each device a report with these options
// shows, the raw counters over the interval (DiskDelta.Diff) under the
// kernel's names, then every note on the delta. It is the companion of a
// sysstat report: the figures there are derived from these.
func WriteCounters(w io.Writer, d Delta, o ReportOptions) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%-13s", "Device")
	for _, n := range counterNames {
		fmt.Fprintf(bw, " %*s", max(len(n), 10), n)
	}
	fmt.Fprintf(bw, " %6s\n", "Fields")
	var notes []string
	for _, n := range d.Notes {
		notes = append(notes, n.String())
	}
	for _, dd := range d.Disks {
		if !o.Shown(dd) {
			continue
		}
		fmt.Fprintf(bw, "%-13s", dd.Name)
		p := dd.Diff.ptrs()
		for i, n := range counterNames {
			fmt.Fprintf(bw, " %*d", max(len(n), 10), *p[i])
		}
		fmt.Fprintf(bw, " %6d\n", dd.Diff.Fields)
		for _, n := range dd.Notes {
			notes = append(notes, dd.Name+": "+n.String())
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(bw, "\nNotes (interval %d.%02d s):\n", d.Interval/100, d.Interval%100)
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
