package stortest

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"stortest.dev/iostat"
	"stortest.dev/report"
)

// Main runs a package's tests, for TestMain:
//
//	func TestMain(m *testing.M) { stortest.Main(m) }
//
// When -stortest.junit or STORTEST_JUNIT names a file, Main then writes
// the JUnit report of every workload run of the package into it (see
// package report): the package is one testsuite, replacing its earlier
// one and keeping other packages' suites, so "go test ./..." with one
// absolute path collects every package in one file. A relative path is
// relative to the package's directory, where go test runs the test
// binary. The file is replaced atomically.
//
// Main does not return: it exits with the tests' status, or 1 when the
// tests passed but the report could not be written.
func Main(m *testing.M) {
	pkg := callerPackage()
	start := time.Now()
	code := m.Run()
	if path := JUnitSetting(); path != "" {
		if err := writeJUnit(path, pkg, start, time.Since(start)); err != nil {
			fmt.Fprintf(os.Stderr, "stortest: JUnit report: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
	}
	os.Exit(code)
}

// callerPackage returns the import path of the package whose TestMain
// called Main (for an external test package, the package it tests).
func callerPackage() string {
	pc, _, _, ok := runtime.Caller(2)
	if !ok {
		return "unknown"
	}
	f := runtime.FuncForPC(pc)
	if f == nil {
		return "unknown"
	}
	return packageOf(f.Name())
}

// packageOf extracts the package path from a function's full name:
// "stortest.dev/examples/randread_test.TestMain" gives
// "stortest.dev/examples/randread". The linker writes dots in the last
// path element as %2e ("stortest%2edev.TestMain"), so the first dot
// after the last slash ends the path.
func packageOf(fn string) string {
	slash := strings.LastIndexByte(fn, '/')
	dot := strings.IndexByte(fn[slash+1:], '.')
	pkg := fn
	if dot >= 0 {
		pkg = fn[:slash+1+dot]
	}
	pkg = strings.ReplaceAll(pkg, "%2e", ".")
	return strings.TrimSuffix(pkg, "_test")
}

// writeJUnit merges the package's suite, of every run collected, into
// the JUnit file at path. A run that cannot be made into a testcase is
// reported, but does not keep the others out of the file.
func writeJUnit(path, pkg string, start time.Time, elapsed time.Duration) error {
	cs, cerr := cases()
	hostname, _ := os.Hostname()
	s := report.Suite{
		Name: pkg, Hostname: hostname, Timestamp: start, Time: elapsed,
		Properties: hostProperties(iostat.DefaultFS()), Cases: cs,
	}
	return errors.Join(cerr, report.MergeFile(path, s))
}
