// Package target holds what the test API and the command line share
// about the files and devices they run on. Today that is the
// destructive-write guard: before a job writes or trims a block device,
// Guard.CheckWrite reads the mount table, the swap list and the holders
// in sysfs, and refuses a device that a file system, another device or
// the swap code is using.
//
// Two rules use it. The command line follows fio: a device in use is
// refused unless the job gives allow_mounted_write=1, and any other
// device is written, whatever it holds. The test API is stricter: a
// device in use is refused unless the job also sets AllowMountedWrite,
// and any device, in use or not, must be listed in
// STORTEST_ALLOW_DESTRUCTIVE.
//
// The kernel files are read through an iostat.FS, so tests root them
// at fixture trees.
//
// CleanOrphans (orphans.go) removes what stortest processes that died
// before their cleanup left behind: loop devices over scratch files,
// the files, mount directories and artifact directories, each named
// after its maker with package owner's tag.
package target
