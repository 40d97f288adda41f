// Package iostat reads block device counters from /proc/diskstats and
// /sys/block/*/stat, takes snapshots of them, and derives every figure of
// sysstat's "iostat -d -x" (12.6) from two snapshots exactly as sysstat
// does, so the numbers agree with iostat to its two decimals.
//
// The derived figures need care: r_await and w_await are queue plus
// service time, and %util only says some request was in flight, which is
// far from saturation on devices that serve requests in parallel. A
// DiskDelta therefore keeps the raw counters (Prev, Curr, Diff) beside
// the figures (Ext, Basic) and notes what looks wrong (Notes).
//
// Kernel differences are data: /proc/diskstats has 14, 18 or 20 fields
// per line depending on the kernel (discard counters since 4.18, flush
// counters since 5.5), and IOStats.Fields records how many a device had.
//
// The pieces:
//   - FS reads a proc and a sys tree (NewFS for fixtures, DefaultFS for
//     the running kernel); FS.Snapshot reads a set of devices with the
//     /proc/uptime reading sysstat measures intervals with.
//   - NewDelta turns two snapshots into a Delta; Zero stands for boot,
//     like the first report of iostat. Counter wraps and reset devices
//     are handled as sysstat handles them.
//   - FS.Resolve maps a path (device node, partition, loop device,
//     dm/md, or a file on a file system) to the devices that see its I/O.
//   - Sampler samples during a run, from a goroutine, until stopped.
//   - JSONWriter and TextWriter print sysstat's JSON and plain reports.
package iostat
