package iostat

import (
	"strconv"
	"strings"
)

// figures are what a row of any report prints, computed from the
// counters with sysstat 12.6's operations in its order, so that they
// print as iostat prints them. Sizes are in 512-byte sectors; fctr is
// the sectors per unit of the report.
type figures struct {
	fctr float64

	rps, wps, dps, fps  float64 // I/Os per second
	rsec, wsec, dsec    float64 // sectors per second
	rrqm, wrqm, drqm    float64 // merges per second
	rrqmPct, wrqmPct    float64
	drqmPct             float64
	rAwait, wAwait      float64 // ms
	dAwait, fAwait      float64
	rareq, wareq, dareq float64 // sectors per I/O
	aqu, util           float64
	tps, sec, rqm       float64 // -s: reads, writes and discards together
	await, areq         float64
	rdSec, wrSec, dcSec uint64 // sectors over the interval (basic report)
}

func figuresOf(r Row, u Unit) figures {
	df, itv := r.Diff, r.Interval
	if itv == 0 {
		itv = 1
	}
	e := r.Ext()
	b := r.Basic()
	nios := df.ReadIOs + df.WriteIOs + df.DiscardIOs
	f := figures{
		fctr: u.sectorsPer(),
		rps:  e.RPerS, wps: e.WPerS, dps: e.DPerS, fps: e.FPerS,
		rsec: perSec(df.ReadSectors, itv), wsec: perSec(df.WriteSectors, itv), dsec: perSec(df.DiscardSectors, itv),
		rrqm: e.RrqmPerS, wrqm: e.WrqmPerS, drqm: e.DrqmPerS,
		rrqmPct: e.RrqmPct, wrqmPct: e.WrqmPct, drqmPct: e.DrqmPct,
		rAwait: e.RAwait, wAwait: e.WAwait, dAwait: e.DAwait, fAwait: e.FAwait,
		rareq: ratio(float64(df.ReadSectors), df.ReadIOs),
		wareq: ratio(float64(df.WriteSectors), df.WriteIOs),
		dareq: ratio(float64(df.DiscardSectors), df.DiscardIOs),
		aqu:   e.AquSz, util: e.Util,
		tps: b.TPS,
		rqm: perSec(df.ReadMerges+df.WriteMerges+df.DiscardMerges, itv),
		// sysstat adds the three ms times as 32-bit unsigned ints.
		await: ratio(float64(uint32(df.ReadTicks)+uint32(df.WriteTicks)+uint32(df.DiscardTicks)), nios),
		areq:  ratio(float64(df.ReadSectors+df.WriteSectors+df.DiscardSectors), nios),
	}
	f.sec = f.rsec + f.wsec + f.dsec
	f.rdSec, f.wrSec, f.dcSec = basicSectors(r.DiskDelta)
	return f
}

// basicSectors are the sectors of the basic report over the interval,
// undoing a 32-bit wrap of the counts as sysstat does.
func basicSectors(d DiskDelta) (rd, wr, dc uint64) {
	wrap := func(c, p, dv uint64) uint64 {
		if c < p && p <= 0xffffffff {
			return dv & 0xffffffff
		}
		return dv
	}
	df := d.Diff
	return wrap(d.Curr.ReadSectors, d.Prev.ReadSectors, df.ReadSectors),
		wrap(d.Curr.WriteSectors, d.Prev.WriteSectors, df.WriteSectors),
		wrap(d.Curr.DiscardSectors, d.Prev.DiscardSectors, df.DiscardSectors)
}

// printer appends figures the way sysstat's cprintf_* functions print
// them (without colours, as with S_COLORS=never or a pipe).
type printer struct {
	b   []byte
	dec int // sysstat's dplaces_nr: -1 for its default
}

// unitChars are sysstat's unit suffixes from sectors up.
const unitChars = "sBkMGTP?"

// Units of values passed to sized.
const (
	unitSector   = 0
	unitKilobyte = 2
)

func (p *printer) fixed(width, places int, v float64) {
	s := strconv.FormatFloat(v, 'f', places, 64)
	p.b = append(p.b, ' ')
	for i := len(s); i < width; i++ {
		p.b = append(p.b, ' ')
	}
	p.b = append(p.b, s...)
}

// f is cprintf_f without a unit: two decimals unless --dec.
func (p *printer) f(width int, v float64) {
	places := 2
	if p.dec >= 0 {
		places = p.dec
	}
	p.fixed(width, places, v)
}

// sized is cprintf_unit: v in the given unit (sectors are halved to
// kB), scaled by 1024 while it is 1024 or more, printed with one decimal
// (none with --dec=0) and the unit's letter.
func (p *printer) sized(unit, width int, v float64) {
	width = max(width, 4)
	if unit == unitSector {
		v /= 2
		unit = unitKilobyte
	}
	for v >= 1024 {
		v /= 1024
		unit++
	}
	places := 1
	if p.dec == 0 {
		places = 0
	}
	p.fixed(width-1, places, v)
	p.b = append(p.b, unitChars[min(unit, len(unitChars)-1)])
}

// pc is cprintf_pc: a percentage, with a % sign and one decimal fewer
// when human.
func (p *printer) pc(human bool, width int, v float64) {
	places := 2
	if p.dec >= 0 {
		places = p.dec
	}
	if human {
		width = max(width, 4) - 1
		if places > 1 {
			places--
		}
	}
	p.fixed(width, places, v)
	if human {
		p.b = append(p.b, '%')
	}
}

// u is cprintf_u64 without a unit.
func (p *printer) u(width int, v uint64) {
	s := strconv.FormatUint(v, 10)
	p.b = append(p.b, ' ')
	for i := len(s); i < width; i++ {
		p.b = append(p.b, ' ')
	}
	p.b = append(p.b, s...)
}

// kind says how a column prints.
type kind int

const (
	plain   kind = iota // a rate or a time: two decimals
	sectors             // a size in sectors: the report's unit, or a suffix with Human
	kbytes              // a size in kB (request sizes): a suffix with Human
	percent
	total // a count of sectors over the interval
)

// column is one column of a plain device report: its header (with %s
// for the unit), its width less the space before it, how it prints and
// its value.
type column struct {
	head  string
	width int
	kind  kind
	val   func(*figures) float64
	total func(*figures) uint64
}

// The columns of sysstat 12.6's device reports, in its order.
var (
	readCols = []column{
		{"r/s", 7, plain, func(f *figures) float64 { return f.rps }, nil},
		{"r%s/s", 9, sectors, func(f *figures) float64 { return f.rsec }, nil},
		{"rrqm/s", 8, plain, func(f *figures) float64 { return f.rrqm }, nil},
		{"%rrqm", 6, percent, func(f *figures) float64 { return f.rrqmPct }, nil},
		{"r_await", 7, plain, func(f *figures) float64 { return f.rAwait }, nil},
		{"rareq-sz", 8, kbytes, func(f *figures) float64 { return f.rareq / 2 }, nil},
	}
	writeCols = []column{
		{"w/s", 7, plain, func(f *figures) float64 { return f.wps }, nil},
		{"w%s/s", 9, sectors, func(f *figures) float64 { return f.wsec }, nil},
		{"wrqm/s", 8, plain, func(f *figures) float64 { return f.wrqm }, nil},
		{"%wrqm", 6, percent, func(f *figures) float64 { return f.wrqmPct }, nil},
		{"w_await", 7, plain, func(f *figures) float64 { return f.wAwait }, nil},
		{"wareq-sz", 8, kbytes, func(f *figures) float64 { return f.wareq / 2 }, nil},
	}
	discardCols = []column{
		{"d/s", 7, plain, func(f *figures) float64 { return f.dps }, nil},
		{"d%s/s", 9, sectors, func(f *figures) float64 { return f.dsec }, nil},
		{"drqm/s", 8, plain, func(f *figures) float64 { return f.drqm }, nil},
		{"%drqm", 6, percent, func(f *figures) float64 { return f.drqmPct }, nil},
		{"d_await", 7, plain, func(f *figures) float64 { return f.dAwait }, nil},
		{"dareq-sz", 8, kbytes, func(f *figures) float64 { return f.dareq / 2 }, nil},
	}
	flushCols = []column{
		{"f/s", 7, plain, func(f *figures) float64 { return f.fps }, nil},
		{"f_await", 7, plain, func(f *figures) float64 { return f.fAwait }, nil},
		{"aqu-sz", 7, plain, func(f *figures) float64 { return f.aqu }, nil},
		{"%util", 6, percent, func(f *figures) float64 { return f.util }, nil},
	}
	extShortCols = []column{
		{"tps", 8, plain, func(f *figures) float64 { return f.tps }, nil},
		{"%s/s", 9, sectors, func(f *figures) float64 { return f.sec }, nil},
		{"rqm/s", 8, plain, func(f *figures) float64 { return f.rqm }, nil},
		{"await", 7, plain, func(f *figures) float64 { return f.await }, nil},
		{"areq-sz", 8, kbytes, func(f *figures) float64 { return f.areq / 2 }, nil},
		{"aqu-sz", 7, plain, func(f *figures) float64 { return f.aqu }, nil},
		{"%util", 6, percent, func(f *figures) float64 { return f.util }, nil},
	}
	basicCols = []column{
		{"tps", 8, plain, func(f *figures) float64 { return f.tps }, nil},
		{"%s_read/s", 12, sectors, func(f *figures) float64 { return f.rsec }, nil},
		{"%s_wrtn/s", 12, sectors, func(f *figures) float64 { return f.wsec }, nil},
		{"%s_dscd/s", 12, sectors, func(f *figures) float64 { return f.dsec }, nil},
		{"%s_read", 10, total, nil, func(f *figures) uint64 { return f.rdSec }},
		{"%s_wrtn", 10, total, nil, func(f *figures) uint64 { return f.wrSec }},
		{"%s_dscd", 10, total, nil, func(f *figures) uint64 { return f.dcSec }},
	}
	basicShortCols = []column{
		{"tps", 8, plain, func(f *figures) float64 { return f.tps }, nil},
		{"%s_read/s", 12, sectors, func(f *figures) float64 { return f.rsec }, nil},
		{"%s_w+d/s", 12, sectors, func(f *figures) float64 { return f.wsec + f.dsec }, nil},
		{"%s_read", 10, total, nil, func(f *figures) uint64 { return f.rdSec }},
		{"%s_w+d", 10, total, nil, func(f *figures) uint64 { return f.wrSec + f.dcSec }},
	}
)

// columns are the columns of the device report o asks for, in one table.
func (o ReportOptions) columns() []column {
	switch {
	case o.Extended && o.Short:
		return extShortCols
	case o.Extended:
		return concat(readCols, writeCols, discardCols, flushCols)
	case o.Short:
		return basicShortCols
	}
	return basicCols
}

// extParts are the four tables of a pretty extended report.
var extParts = [][]column{readCols, writeCols, discardCols, flushCols}

func concat(parts ...[]column) []column {
	var out []column
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// header appends a device report's header line.
func (p *printer) header(o ReportOptions, cols []column) {
	if !o.Pretty {
		p.b = append(p.b, "Device       "...)
	}
	label := o.Unit.label(o.Extended)
	for _, c := range cols {
		h := c.head
		h = strings.Replace(h, "%s", label, 1)
		p.b = append(p.b, ' ')
		for i := len(h); i < c.width; i++ {
			p.b = append(p.b, ' ')
		}
		p.b = append(p.b, h...)
	}
	if o.Pretty {
		p.b = append(p.b, " Device"...)
	}
	p.b = append(p.b, '\n')
}

// row appends one device line.
func (p *printer) row(o ReportOptions, cols []column, r Row) {
	if !o.Pretty {
		p.b = append(p.b, r.Name...)
		for i := len(r.Name); i < 13; i++ {
			p.b = append(p.b, ' ')
		}
	}
	f := figuresOf(r, o.Unit)
	for _, c := range cols {
		switch c.kind {
		case plain:
			p.f(c.width, c.val(&f))
		case sectors:
			if o.Human {
				p.sized(unitSector, c.width, c.val(&f))
			} else {
				p.f(c.width, c.val(&f)/f.fctr)
			}
		case kbytes:
			if o.Human {
				p.sized(unitKilobyte, c.width, c.val(&f))
			} else {
				p.f(c.width, c.val(&f))
			}
		case percent:
			p.pc(o.Human, c.width, c.val(&f))
		case total:
			if o.Human {
				p.sized(unitSector, c.width, float64(c.total(&f)))
			} else {
				p.u(c.width, c.total(&f)/uint64(f.fctr))
			}
		}
	}
	if o.Pretty {
		p.b = append(p.b, ' ')
		p.b = append(p.b, r.Name...)
	}
	p.b = append(p.b, '\n')
}
