// Package randread is a storage test suite to copy: a TestMain that
// writes a JUnit report, a random-read test with latency limits, and a
// write-and-verify test on a loop device.
//
// Run it as root, for loop devices with direct I/O:
//
//	go test -v ./examples/randread
//	go test ./examples/randread -stortest.junit=$PWD/junit.xml -stortest.out=$PWD/out
//	go test ./examples/randread -stortest.device=/dev/nvme1n1   # reads only, unless listed in STORTEST_ALLOW_DESTRUCTIVE
//
// Without root the random-read test runs on a temporary file and the
// loop-device test skips; STORTEST_REQUIRE_DEVICE=1 makes both fail
// instead, which is what CI wants.
//
// The runtimes and limits here are sized for a shared CI machine and a
// run of a few seconds; a real suite runs minutes per job and sets the
// limits its devices are specified for.
package randread
