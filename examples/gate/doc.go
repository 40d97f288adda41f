// Package gate is the README's gate example: one job, 4 KiB random
// reads at queue depth 32 with io_uring and direct I/O for 5 seconds,
// compared with a baseline grown one `go test` session at a time.
//
// As root, on a loop device over /dev/shm whose reads cgroup v1 blkio
// throttles to 20000 IOPS (a device that is steady from one session to
// the next):
//
//	truncate -s 256M /dev/shm/gate.img
//	dev=$(losetup --find --show --direct-io=on /dev/shm/gate.img)
//	mkdir /sys/fs/cgroup/blkio/gate
//	echo "$(cat /sys/class/block/${dev#/dev/}/dev) 20000" > /sys/fs/cgroup/blkio/gate/blkio.throttle.read_iops_device
//	echo $$ > /sys/fs/cgroup/blkio/gate/cgroup.procs   # this shell and what it starts
//
// Record the baseline from five separate sessions (five processes,
// which in CI are five pipeline runs, hours or days apart), each adding
// its run to the baseline:
//
//	for i in 1 2 3 4 5; do
//		go test -count=1 ./examples/gate -stortest.device=$dev -stortest.update=append
//	done
//
// The gate has then learned how far this device moves between sessions.
// A rerun of the unchanged device passes, strict:
//
//	go test -count=1 ./examples/gate -stortest.device=$dev -stortest.strict
//
// and at 17000 IOPS (-15%) it fails with a regression finding
// ("read iops ... regression beyond 10% tolerance"):
//
//	echo "$(cat /sys/class/block/${dev#/dev/}/dev) 17000" > /sys/fs/cgroup/blkio/gate/blkio.throttle.read_iops_device
//	go test -count=1 ./examples/gate -stortest.device=$dev -stortest.strict
//
// Clean up: move the shell back to the root group, then remove the
// group, detach the loop device and its backing file:
//
//	echo $$ > /sys/fs/cgroup/blkio/cgroup.procs
//	rmdir /sys/fs/cgroup/blkio/gate
//	losetup -d $dev; rm /dev/shm/gate.img
//
// stortest's own suite runs exactly this (TestReadmeGateSessions).
package gate
