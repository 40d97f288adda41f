package iostat

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Item is one device or group of iostat's command line, in the order
// given.
type Item struct {
	// Name of a device as the user gave it: a kernel name ("sda1",
	// "cciss/c0d0p2"), a path (/dev/sdb, a link under /dev/disk), a
	// device-mapper name with MonitorConfig.DMNames ("vg-root"), or a
	// persistent name with MonitorConfig.Persistent. Empty for a group.
	Name string
	// Partitions reads the device and all its partitions (-p DEV).
	Partitions bool
	// Group starts a group (-g NAME): the devices after it, up to the
	// next group, and those found while reading when it is the last,
	// are shown summed under its name.
	Group string
}

// MonitorConfig says what a Monitor reads and lists, after sysstat's
// iostat command line.
type MonitorConfig struct {
	// Items are the devices and groups named, in order.
	Items []Item
	// AllPartitions reads every device and partition from
	// /proc/diskstats (-p ALL, or -p among other flags), listing them
	// in the file's order and new ones last. Otherwise the named devices
	// are read from sysfs and listed in name order (unless groups are
	// defined: then in the order named).
	AllPartitions bool
	// AllDevices also reads every whole device under /sys/block ("ALL",
	// and what iostat does when no device is named).
	AllDevices bool
	// ShowIdle lists devices that never completed an I/O since boot
	// (what iostat does for named devices, ALL and -p).
	ShowIdle bool
	// OmitIdle leaves out devices with no I/O in the interval (-z).
	OmitIdle bool
	// GroupsOnly shows a group's total without its devices (-H).
	GroupsOnly bool
	// Extended leaves out, with AllPartitions, old partitions without
	// extended counters, as iostat -x does.
	Extended bool
	// DMNames shows device-mapper devices by their names under
	// /dev/mapper (-N).
	DMNames bool
	// Persistent shows devices by their persistent names of this type,
	// from /dev/disk/by-<type> (-j: "id", "label", "path", "uuid",
	// "partuuid"...), and reads named devices as such names.
	Persistent string
	// CPU reads /proc/stat for the avg-cpu report.
	CPU bool
}

// Monitor takes samples as sysstat's iostat does and turns each into a
// Report: it keeps iostat's list of devices from sample to sample (a
// device that goes away keeps its place and is left out while it is
// gone; one that comes back is compared with its last counters), and the
// previous sample for the rates. Not safe for concurrent use.
type Monitor struct {
	fs     FS
	cfg    MonitorConfig
	list   []*entry
	groups bool
	curr   int // sample slot being filled: 0 or 1
	uptime [2]uint64
	cpu    [2]CPUStats
	n      int // samples taken
	// dmMajor is device-mapper's major number from <proc>/devices, read
	// once as sysstat does; ^0 when there is none.
	dmMajor     uint32
	dmMajorRead bool
	notes       []Note
}

type entryKind int

const (
	kindPart    entryKind = iota // a partition, read by its numbers
	kindDisk                     // a whole device under /sys/block
	kindDiskAll                  // a whole device and its partitions (-p DEV)
	kindGroup
)

// entry is one element of iostat's list.
type entry struct {
	// name as iostat keeps it: as named, or as found in sysfs ('!'
	// for '/') or /proc/diskstats.
	name         string
	arg          string // as given on the command line, for notes
	kind         entryKind
	major, minor uint32
	exist        bool
	stats        [2]IOStats
	filled       [2]bool
	members      int // groups: devices counted over every sample
}

// NewMonitor returns a Monitor for cfg; no sample is taken yet.
func (f FS) NewMonitor(cfg MonitorConfig) (*Monitor, error) {
	m := &Monitor{fs: f, cfg: cfg}
	for _, it := range cfg.Items {
		if it.Group != "" {
			m.groups = true
		}
	}
	for _, it := range cfg.Items {
		if it.Group != "" {
			m.add(" "+it.Group, kindGroup, 0, 0, false)
			continue
		}
		if it.Name == "" {
			return nil, errors.New("iostat: monitor: an item with neither a name nor a group")
		}
		name := f.argName(it.Name)
		if cfg.Persistent != "" {
			if p, ok := f.prettyFromPersistent(cfg.Persistent, name); ok {
				name = p
			}
		}
		k := kindDisk
		if it.Partitions {
			k = kindDiskAll
		}
		e := m.add(name, k, 0, 0, false)
		if e.arg == "" {
			e.arg = it.Name
		}
	}
	return m, nil
}

// argName is what sysstat makes of a device named on its command line:
// a path that exists is resolved (links followed) and /dev/ taken off,
// and '/' becomes '!' as in sysfs. (sysstat keeps the '/' of a name that
// is not a path, "cciss/c0d0", and then finds no /sys/block/cciss/c0d0.)
func (f FS) argName(arg string) string {
	p := arg
	if rest, ok := strings.CutPrefix(arg, "/dev/"); ok {
		p = f.DevPath(rest) // the same place when the dev root is /dev
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return sysName(arg)
	}
	if abs, err := filepath.Abs(real); err == nil {
		real = abs
	}
	if rest, ok := strings.CutPrefix(real, f.DevPath()+"/"); ok {
		real = rest
	}
	return sysName(real)
}

// add finds the device or group name in the list, or inserts it: in
// name order when neither groups nor AllPartitions are in use, else
// last. known says whether major and minor are the device's numbers.
func (m *Monitor) add(name string, k entryKind, major, minor uint32, known bool) *entry {
	at := len(m.list)
	for i, e := range m.list {
		if e.name == name {
			if k == kindDiskAll && e.kind == kindDisk {
				e.kind = kindDiskAll
			}
			e.exist = true
			return e
		}
		if !m.groups && !m.cfg.AllPartitions && e.name > name {
			at = i
			break
		}
	}
	e := &entry{name: name, kind: k, exist: true}
	if m.cfg.DMNames && k != kindGroup {
		if dm, ok := m.fs.dmNameOf(name); ok {
			e.name = dm
		}
	}
	if k != kindGroup {
		if !m.fs.isDisk(name) {
			e.kind = kindPart
		} else if k == kindPart {
			e.kind = kindDisk
		}
		if known {
			e.major, e.minor = major, minor
		} else {
			e.major, e.minor = m.fs.numbersOf(e.name)
		}
	}
	m.list = slices.Insert(m.list, at, e)
	return e
}

// isDisk is sysstat's test for a whole device: an entry in /sys/block
// (or the alternate directory's block/).
func (f FS) isDisk(name string) bool {
	for _, root := range f.diskRoots() {
		if _, err := os.Stat(filepath.Join(root, "block", sysName(name))); err == nil {
			return true
		}
	}
	return false
}

// numbersOf finds a device's numbers as sysstat does, from its node
// under /dev, or else from sysfs: its "dev" file, or the link named by
// its numbers under dev/block; 0:0 when unknown.
func (f FS) numbersOf(name string) (uint32, uint32) {
	var st syscall.Stat_t
	if syscall.Stat(f.DevPath(kernelName(name)), &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFBLK {
		return DevNumbers(st.Rdev)
	}
	for _, p := range []string{f.SysPath("block", sysName(name), "dev"), f.SysPath("class", "block", sysName(name), "dev")} {
		if maj, minr, err := f.devNumbers(p); err == nil {
			return maj, minr
		}
	}
	for _, root := range f.diskRoots() {
		dir := filepath.Join(root, "dev", "block")
		links, _ := readdirnames(dir)
		for _, l := range links {
			target, err := os.Readlink(filepath.Join(dir, l))
			if err != nil || filepath.Base(target) != sysName(name) {
				continue
			}
			if maj, minr, err := parseMajMin(l); err == nil {
				return maj, minr
			}
		}
	}
	return 0, 0
}

// dmNameOf is the kernel name ("dm-0") of a device-mapper device named
// by its link under /dev/mapper ("vg-root").
func (f FS) dmNameOf(name string) (string, bool) {
	target, err := os.Readlink(f.DevPath("mapper", name))
	if err != nil {
		return "", false
	}
	return filepath.Base(target), true
}

// prettyFromPersistent is the kernel name a persistent name of type typ
// links to under /dev/disk/by-<typ>.
func (f FS) prettyFromPersistent(typ, name string) (string, bool) {
	link := f.DevPath("disk", "by-"+typ, name)
	if _, err := os.Stat(link); err != nil {
		return "", false
	}
	target, err := os.Readlink(link)
	if err != nil || filepath.Base(target) == "" {
		return "", false
	}
	return filepath.Base(target), true
}

// HasPersistentNames reports whether the system names devices by
// persistent names of type typ ("id", "label", "path", "uuid"...): whether
// /dev/disk/by-<typ> can be read.
func (f FS) HasPersistentNames(typ string) bool {
	d, err := os.Open(f.DevPath("disk", "by-"+typ))
	if err != nil {
		return false
	}
	d.Close()
	return true
}

// Sample reads the uptime, the CPU (when asked) and the devices, and
// returns the report of the interval since the previous sample (since
// boot for the first). Devices that cannot be read are left out, with
// notes; only an unreadable uptime or CPU file is an error, as it is for
// iostat.
func (m *Monitor) Sample() (Report, error) {
	m.notes = m.notes[:0]
	for _, e := range m.list {
		e.exist = false
	}
	up, err := m.fs.Uptime()
	if err != nil {
		return Report{}, err
	}
	m.uptime[m.curr] = up
	if m.cfg.CPU {
		if m.cpu[m.curr], err = m.fs.CPUStats(); err != nil {
			return Report{}, err
		}
	}
	if m.cfg.AllPartitions {
		m.readDiskstats()
	} else {
		m.readSysfs()
	}
	for _, e := range m.list {
		if !e.exist && e.arg != "" {
			m.notes = append(m.notes, Note{NoteMissing, fmt.Sprintf("%s: %v", e.arg, ErrNoDevice)})
		}
	}
	r := m.report()
	m.n++
	m.curr ^= 1
	return r, nil
}

func (m *Monitor) store(e *entry, s IOStats) {
	e.stats[m.curr], e.filled[m.curr], e.exist = s, true, true
}

func (m *Monitor) readDiskstats() {
	for _, file := range m.fs.diskstatsFiles() {
		all, notes, err := readDiskstats(file)
		if err != nil {
			m.notes = append(m.notes, Note{NoteMissing, err.Error()})
			continue
		}
		m.notes = append(m.notes, notes...)
		for _, d := range all {
			if m.cfg.Extended && d.Fields == FieldsPartOld {
				continue // no extended counters: iostat -x leaves it out
			}
			m.store(m.add(d.Name, kindPart, d.Major, d.Minor, true), d.IOStats)
		}
	}
}

func (m *Monitor) readSysfs() {
	for _, e := range slices.Clone(m.list) {
		if e.exist {
			continue // found while reading another's partitions
		}
		switch e.kind {
		case kindPart:
			if s, err := m.fs.numberedStat(e.major, e.minor); err == nil {
				m.store(e, s)
			}
		case kindDisk, kindDiskAll:
			if s, err := m.fs.BlockStat(e.name); err == nil {
				m.store(e, s)
			}
			if e.kind == kindDiskAll {
				m.readPartitions(e.name)
			}
		}
	}
	if m.cfg.AllDevices {
		for _, root := range m.fs.diskRoots() {
			dir := filepath.Join(root, "block")
			names, _ := readdirnames(dir)
			for _, name := range names {
				if s, err := m.fs.readStat(filepath.Join(dir, name, "stat")); err == nil {
					m.store(m.add(name, kindDisk, 0, 0, false), s)
				}
			}
		}
	}
}

// readPartitions reads the partitions of a whole device: the entries of
// its directory under block/ with a stat file, from the first place that
// has the directory.
func (m *Monitor) readPartitions(disk string) {
	for _, root := range m.fs.diskRoots() {
		dir := filepath.Join(root, "block", sysName(disk))
		names, err := readdirnames(dir)
		if err != nil {
			continue
		}
		for _, part := range names {
			if s, err := m.fs.readStat(filepath.Join(dir, part, "stat")); err == nil {
				m.store(m.add(part, kindPart, 0, 0, false), s)
			}
		}
		return
	}
}

// readdirnames lists a directory in its own order, as readdir(3) gives
// it to sysstat (which lists in that order when it does not sort).
func readdirnames(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}

// report is sysstat's write_stats: it walks the list, sums groups and
// filters the devices shown.
func (m *Monitor) report() Report {
	prev := m.curr ^ 1
	itv := m.uptime[m.curr] - m.uptime[prev] // wraps as sysstat's does
	if itv == 0 {
		itv = 1
	}
	r := Report{Time: time.Now(), Interval: itv, Notes: slices.Clone(m.notes)}
	if m.uptime[m.curr] < m.uptime[prev] {
		r.Notes = append(r.Notes, Note{NoteUptimeBackwards, fmt.Sprintf(
			"uptime went backwards from %d.%02d s to %d.%02d s: rates read 0",
			m.uptime[prev]/100, m.uptime[prev]%100, m.uptime[m.curr]/100, m.uptime[m.curr]%100)})
	}
	if m.cfg.CPU {
		c := NewAvgCPU(m.cpu[prev], m.cpu[m.curr])
		r.CPU = &c
	}
	var g *entry
	show := func(e *entry) {
		if row, ok := m.row(e, itv); ok {
			r.Disks = append(r.Disks, row)
		}
	}
	for _, e := range m.list {
		if e.kind == kindGroup {
			if g != nil {
				show(g)
			}
			g = e
			g.stats[m.curr], g.filled[m.curr] = IOStats{Fields: FieldsFlush}, true
			continue
		}
		if !e.exist {
			continue
		}
		if g != nil {
			g.members++
			if c := e.stats[m.curr]; m.cfg.ShowIdle || c.ReadIOs+c.WriteIOs+c.DiscardIOs+c.FlushIOs > 0 {
				addStats(&g.stats[m.curr], c)
			}
			if m.cfg.GroupsOnly {
				continue
			}
		}
		show(e)
	}
	if g != nil {
		show(g)
	}
	return r
}

// addStats adds a device's counters to a group's; ms times add as the
// 32-bit counters they are.
func addStats(g *IOStats, c IOStats) {
	gp, cp := g.ptrs(), c.ptrs()
	for i := range gp {
		*gp[i] += *cp[i]
	}
}

// row is a device's or group's line, or false when it is not shown.
func (m *Monitor) row(e *entry, itv uint64) (Row, bool) {
	prev := m.curr ^ 1
	c, p := e.stats[m.curr], e.stats[prev]
	if !m.cfg.ShowIdle && c.ReadIOs+c.WriteIOs+c.DiscardIOs+c.FlushIOs == 0 {
		return Row{}, false
	}
	if m.cfg.OmitIdle && c.ReadIOs == p.ReadIOs && c.WriteIOs == p.WriteIOs && c.DiscardIOs == p.DiscardIOs && c.FlushIOs == p.FlushIOs {
		return Row{}, false
	}
	dd := diskDelta(DiskStat{Major: e.major, Minor: e.minor, Name: kernelName(e.name), IOStats: c}, p, !e.filled[prev], itv)
	if m.n == 0 || e.kind == kindGroup {
		// From boot every device is new; a group is as new as its sum.
		dd.Notes = slices.DeleteFunc(dd.Notes, func(n Note) bool { return n.Kind == NoteNew })
	}
	row := Row{Name: m.displayName(e), DiskDelta: dd}
	if e.kind == kindGroup {
		row.Group, row.Members = true, e.members
	}
	return row, true
}

// displayName is sysstat's get_device_name: the persistent name with -j,
// else the device-mapper name with -N, else the name kept, with '/' for
// '!'.
func (m *Monitor) displayName(e *entry) string {
	if m.cfg.Persistent != "" {
		if p, ok := m.fs.persistentName(m.cfg.Persistent, m.fs.devName(e.major, e.minor)); ok {
			return p
		}
	}
	if m.cfg.DMNames {
		if !m.dmMajorRead {
			m.dmMajor, m.dmMajorRead = m.fs.deviceMapperMajor(), true
		}
		if e.major == m.dmMajor {
			if n, ok := m.fs.dmNameByNumbers(e.major, e.minor); ok {
				return n
			}
		}
	}
	return kernelName(e.name)
}

// devName is sysstat's get_devname: the name sysfs gives MAJ:MIN, or
// "devMAJ-MIN".
func (f FS) devName(major, minor uint32) string {
	if n, err := f.DeviceByNumber(major, minor); err == nil {
		return sysName(n)
	}
	return fmt.Sprintf("dev%d-%d", major, minor)
}

// persistentName is the first name, in byte order, under
// /dev/disk/by-<typ> that links to the device pretty.
func (f FS) persistentName(typ, pretty string) (string, bool) {
	dir := f.DevPath("disk", "by-"+typ)
	ents, err := os.ReadDir(dir) // sorted, as sysstat's alphasort in the C locale
	if err != nil {
		return "", false
	}
	for _, e := range ents {
		link := filepath.Join(dir, e.Name())
		if _, err := os.Stat(link); err != nil {
			continue
		}
		target, err := os.Readlink(link)
		if err == nil && filepath.Base(target) == pretty {
			return e.Name(), true
		}
	}
	return "", false
}

// deviceMapperMajor reads device-mapper's major number from
// <proc>/devices; ^0 (no device has it) when there is none.
func (f FS) deviceMapperMajor() uint32 {
	maj := ^uint32(0)
	b, err := os.ReadFile(f.ProcPath("devices"))
	if err != nil {
		return maj
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, "device-mapper") {
			fmt.Sscanf(line, "%d", &maj)
		}
	}
	return maj
}

// dmNameByNumbers is the name under /dev/mapper of the node MAJ:MIN, in
// directory order as sysstat scans it.
func (f FS) dmNameByNumbers(major, minor uint32) (string, bool) {
	dir := f.DevPath("mapper")
	names, _ := readdirnames(dir)
	for _, n := range names {
		var st syscall.Stat_t
		if syscall.Stat(filepath.Join(dir, n), &st) != nil {
			continue
		}
		if maj, minr := DevNumbers(st.Rdev); maj == major && minr == minor {
			return n, true
		}
	}
	return "", false
}
