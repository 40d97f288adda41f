package iostat

import (
	"fmt"
	"time"

	"stortest.dev/internal/enum"
)

// Source says which kernel file a snapshot reads.
type Source int

const (
	// FromDiskstats reads /proc/diskstats: every disk and partition in
	// one read (sysstat's iostat -p ALL).
	FromDiskstats Source = iota
	// FromSysBlock reads /sys/block/<dev>/stat per device (sysstat's
	// iostat without -p): whole devices unless partitions are named.
	FromSysBlock
	// NoDevices reads no device: the uptime and the CPU only, for a
	// run whose I/O no block device shows (a file on tmpfs).
	NoDevices
)

var sourceNames = [...]string{FromDiskstats: "diskstats", FromSysBlock: "sysblock", NoDevices: "none"}

func (s Source) String() string { return enum.Name(sourceNames[:], s, "Source") }

// Snapshot is the counters of a set of devices at one instant.
type Snapshot struct {
	// Time is when the counters were read. It carries Go's monotonic
	// clock reading, so Sub between two snapshots of one process is
	// immune to wall-clock steps; the reading is lost when a snapshot
	// is serialized.
	Time time.Time
	// Monotonic is CLOCK_MONOTONIC when the counters were read: a
	// system-wide clock that survives serialization, unlike the
	// reading inside Time. Zero when unknown.
	Monotonic time.Duration
	// Uptime is /proc/uptime in hundredths of a second, read just
	// before the counters. sysstat measures its interval with it, so
	// deltas use it to agree with iostat to the last digit. Zero in
	// the zero snapshot (boot) and when the uptime is unknown.
	Uptime uint64
	Source Source
	Disks  []DiskStat
	// CPU is the "cpu" line of /proc/stat read with the counters (Fields
	// 0 when it could not be read), so that a delta says how busy the
	// CPUs were while the devices did their I/O.
	CPU CPUStats
	// Notes on what was read: lines of /proc/diskstats skipped, named
	// devices not found.
	Notes []Note
}

// Disk returns the named device's counters.
func (s Snapshot) Disk(name string) (DiskStat, bool) {
	for _, d := range s.Disks {
		if d.Name == name {
			return d, true
		}
	}
	return DiskStat{}, false
}

// Snapshot reads the uptime and then the counters from src. With device
// names, only those devices are kept (FromDiskstats) or read
// (FromSysBlock, where a name may be a partition); a named device that
// does not exist is an error wrapping ErrNoDevice. Without names every
// device is kept: all lines of /proc/diskstats, or every whole device
// under /sys/block.
func (f FS) Snapshot(src Source, devices ...string) (Snapshot, error) {
	up, err := f.Uptime()
	if err != nil {
		return Snapshot{}, err
	}
	s := Snapshot{Time: time.Now(), Monotonic: monotonicNow(), Uptime: up, Source: src}
	s.CPU, _ = f.CPUStats() // a machine without /proc/stat has devices still
	switch src {
	case FromDiskstats:
		all, notes, err := f.Diskstats()
		if err != nil {
			return Snapshot{}, err
		}
		s.Notes = notes
		if len(devices) == 0 {
			s.Disks = all
			break
		}
		s.Disks = make([]DiskStat, 0, len(devices))
		for _, name := range devices {
			found := false
			for _, d := range all {
				if d.Name == name {
					s.Disks = append(s.Disks, d)
					found = true
					break
				}
			}
			if !found {
				return Snapshot{}, fmt.Errorf("iostat: %s: %w in %s", name, ErrNoDevice, f.ProcPath("diskstats"))
			}
		}
	case FromSysBlock:
		if len(devices) == 0 {
			if s.Disks, err = f.SysBlockStats(); err != nil {
				return Snapshot{}, err
			}
			break
		}
		s.Disks = make([]DiskStat, 0, len(devices))
		for _, name := range devices {
			d, err := f.DeviceStat(name)
			if err != nil {
				return Snapshot{}, err
			}
			s.Disks = append(s.Disks, d)
		}
	case NoDevices:
	default:
		return Snapshot{}, fmt.Errorf("iostat: unknown source %v", src)
	}
	return s, nil
}
