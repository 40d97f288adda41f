// Package iostat reads block device counters from /proc/diskstats and
// /sys/block/*/stat and CPU times from /proc/stat, takes snapshots of
// them, and derives every figure of sysstat's iostat from two snapshots
// exactly as sysstat 12.6 does, so the numbers and the reports agree with
// iostat's to the last character.
//
// The derived figures need care: r_await and w_await are queue plus
// service time, and %util only says some request was in flight, which is
// far from saturation on devices that serve requests in parallel. A
// DiskDelta therefore keeps the raw counters (Prev, Curr, Diff) beside
// the figures (Ext, Basic) and notes what looks wrong (Notes).
//
// What the kernel hands over is data, never a reason to stop: a
// /proc/diskstats line has 14, 18 or 20 fields depending on the kernel
// (discard counters since 4.18, flush counters since 5.5), and a longer
// one from a newer kernel is read too. Counters are used in the groups
// sysstat uses (IOStats.Fields records how many the kernel gave); a line
// too short for the basic counters is skipped with a note, as iostat
// skips it; a stat file too short reads as zero; an uptime running
// backwards gives 0.00 rates with a note. Only a failed read is an error.
//
// The pieces:
//   - FS reads a proc, a sys and a dev tree (NewFS and WithDev for
//     fixtures, DefaultFS for the running kernel, WithAltDir for
//     iostat's -f and +f); FS.Snapshot reads a set of devices and the CPU
//     with the /proc/uptime reading sysstat measures intervals with.
//   - NewDelta turns two snapshots into a Delta, with the avg-cpu
//     figures (AvgCPU) of the same interval; Zero stands for boot, like
//     the first report of iostat. Counter wraps and reset devices are
//     handled as sysstat handles them.
//   - FS.Resolve maps a path (device node, partition, loop device,
//     dm/md, or a file on a file system) to the devices that see its I/O.
//   - Sampler samples during a run, from a goroutine, until stopped.
//   - Monitor is iostat's loop over samples: its list of devices and
//     groups (-g), named the way iostat names them (-N, -j), found the way
//     iostat finds them (a named partition through its node in /dev and
//     /sys/dev/block), kept in iostat's order from sample to sample (by
//     name, but in file order with -p ALL, where new devices come last),
//     with the devices that went away left out until they come back.
//     FS.Watch runs it at an interval and prints its reports.
//   - JSONWriter and TextWriter print sysstat's JSON and plain reports,
//     in every form iostat has (-c, -d, -x, -s, -h, --human, --pretty,
//     --compact, --dec, -k, -m, and 512-byte blocks under
//     POSIXLY_CORRECT).
//
// The reference is sysstat 12.6, the version Debian ships: the files
// under testdata/sysstat/want are its output, and the tests require the
// same from this package. Where later versions print otherwise, 12.6
// wins: with -y it prints an empty line in place of the report it
// omits (12.7.7 does not). Differences that remain, on purpose:
//   - -p cciss/c0d0 (a whole device with '/' in its name, given with -p)
//     lists the device and its partitions; 12.6 looks for
//     /sys/block/cciss/c0d0 and prints an empty table.
//   - With --pretty -x and -g, the four tables show the groups' totals;
//     12.6 shows them in the first only and garbage in the others.
//   - With -x -o JSON, a group without devices leaves no trace; 12.6
//     prints a stray comma in its place, which makes the JSON invalid.
//   - Colours (S_COLORS) are never printed; the names of devices in
//     sysstat.ioconf (for devices sysfs cannot name) are not read.
package iostat
