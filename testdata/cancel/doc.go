// Package cancel is a test program for stortest's own tests, not an
// example: TestMainSIGINT (cancel_test.go) builds its test binary with
// go test -c and signals it while TestLong's 30-second workload runs
// under stortest.Main; TestNext comes after the signal. TestMainTimeout
// (timeout_test.go) runs it with a -test.timeout of a few seconds
// instead. CANCEL_TARGET=loop
// runs them on loop devices instead of files; CANCEL_STUCK=1 adds a test
// that sleeps through the signal, for a second one to end the binary. It
// lives under testdata so that "go test ./..." leaves it alone.
package cancel
