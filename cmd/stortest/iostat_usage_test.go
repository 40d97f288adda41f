package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var updateUsage = flag.Bool("update-iostat-usage", false,
	"rewrite testdata/iostat_usage.json from the installed sysstat iostat (12.6)")

// usageRecording is testdata/iostat_usage.json: what sysstat's iostat did
// with each command line of usageCases.
type usageRecording struct {
	Sysstat string          `json:"sysstat"` // iostat -V's first line
	Cases   []usageRecorded `json:"cases"`
}

type usageRecorded struct {
	Name   string   `json:"name"`
	Args   []string `json:"args"`
	Exit   int      `json:"exit"`
	Stdout string   `json:"stdout"`
	Stderr string   `json:"stderr"`
}

// usageCases are command lines with a mistake. {missing}, {file} and
// {dir} stand for a path that does not exist, a regular file and a
// directory. The first six are those of sysstat 12.6's own test suite
// (tests/02500 to 02525; of them, 02520 looks for "Invalid", the others
// for "Usage:"). With version, the line prints iostat's version, which is
// stortest's own: stdout is not compared.
var usageCases = []struct {
	name    string
	args    []string
	version bool
}{
	{name: "02500 count 0", args: []string{"2", "0"}},
	{name: "02505 negative interval", args: []string{"-2", "1"}},
	{name: "02510 negative count", args: []string{"2", "-1"}},
	{name: "02515 -H without -g", args: []string{"-H"}},
	{name: "02520 unknown -j type", args: []string{"-j", "FOObar"}},
	{name: "02525 +f of a missing directory", args: []string{"-p", "ALL", "+f", "{missing}"}},

	{name: "unknown option", args: []string{"-q"}},
	{name: "unknown option among known", args: []string{"-dxq"}},
	{name: "unknown long option", args: []string{"--foo"}},
	{name: "-k with -m", args: []string{"-km"}},
	{name: "-m with -k", args: []string{"-m", "-k"}},
	{name: "three numbers", args: []string{"1", "2", "3"}},
	{name: "count without an interval", args: []string{"0", "3"}},
	{name: "-o not JSON", args: []string{"-o", "XML"}},
	{name: "-o lowercase json", args: []string{"-o", "json"}},
	{name: "-o without a value", args: []string{"-o"}},
	{name: "-g without a name", args: []string{"-g"}},
	{name: "-H then -g without a name", args: []string{"-H", "-g"}},
	{name: "-j without a type", args: []string{"-d", "-j"}},
	{name: "-j of 511 bytes", args: []string{"-j", strings.Repeat("a", 511)}},
	{name: "-j unknown, lowercase", args: []string{"-j", "nosuchtype"}},
	{name: "-j unknown before a mistake", args: []string{"-j", "FOObar", "-q"}},
	{name: "-j unknown after a mistake", args: []string{"-q", "-j", "FOObar"}},
	{name: "-j unknown before a bad count", args: []string{"-j", "FOObar", "2", "0"}},
	{name: "-f without a directory", args: []string{"-f"}},
	{name: "+f without a directory", args: []string{"-d", "+f"}},
	{name: "-f of a missing directory", args: []string{"-f", "{missing}"}},
	{name: "-f of a file", args: []string{"-f", "{file}"}},
	{name: "+f of a file", args: []string{"+f", "{file}"}},
	{name: "-f then +f", args: []string{"-f", "{dir}", "+f", "{dir}"}},
	{name: "+f twice", args: []string{"+f", "{dir}", "+f", "{dir}"}},
	{name: "--dec=3", args: []string{"--dec=3"}},
	{name: "--dec=12", args: []string{"--dec=12"}},
	{name: "--dec= empty", args: []string{"--dec="}},
	{name: "--dec without =", args: []string{"--dec", "1"}},
	{name: "--human with a value", args: []string{"--human=1"}},
	{name: "-p then a bad count", args: []string{"-p", "2", "0"}},
	{name: "mistake before -V", args: []string{"-qV"}},
	{name: "-V before a mistake", args: []string{"-Vq"}, version: true},
	{name: "-V before a bad count", args: []string{"-V", "2", "0"}, version: true},
}

// usagePaths makes what the placeholders stand for and returns the
// arguments with them replaced.
func usagePaths(t *testing.T, args []string) []string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := strings.NewReplacer("{missing}", filepath.Join(dir, "missing", "foo"), "{file}", file, "{dir}", dir)
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = r.Replace(a)
	}
	return out
}

const usageFile = "testdata/iostat_usage.json"

// TestIostatUsageSysstat: every mistake on iostat's command line gets
// what sysstat 12.6.1's iostat answered, recorded in
// testdata/iostat_usage.json: the same stdout (nothing) and stderr, byte
// for byte, and the same exit status.
func TestIostatUsageSysstat(t *testing.T) {
	if *updateUsage {
		recordUsage(t)
	}
	rec := readUsageRecording(t)
	if len(rec.Cases) != len(usageCases) {
		t.Fatalf("%s has %d cases, usageCases %d: run go test -run TestIostatUsageSysstat -update-iostat-usage", usageFile, len(rec.Cases), len(usageCases))
	}
	for i, c := range usageCases {
		want := rec.Cases[i]
		t.Run(c.name, func(t *testing.T) {
			if want.Name != c.name || !slices.Equal(want.Args, c.args) {
				t.Fatalf("recorded case %d is %q %q, not %q %q", i, want.Name, want.Args, c.name, c.args)
			}
			var stdout, stderr bytes.Buffer
			code := runMain(append([]string{"iostat"}, usagePaths(t, c.args)...), &stdout, &stderr)
			if code != want.Exit {
				t.Errorf("exit %d, sysstat %d", code, want.Exit)
			}
			if diff := cmp.Diff(want.Stderr, stderr.String()); diff != "" {
				t.Errorf("stderr differs from sysstat's (-sysstat +stortest):\n%s", diff)
			}
			if c.version {
				if stdout.Len() == 0 {
					t.Error("no version on stdout")
				}
			} else if diff := cmp.Diff(want.Stdout, stdout.String()); diff != "" {
				t.Errorf("stdout differs from sysstat's (-sysstat +stortest):\n%s", diff)
			}
		})
	}
}

// TestIostatUsageRecording checks the recording against the installed
// sysstat, when it is 12.6.1.
func TestIostatUsageRecording(t *testing.T) {
	rec := readUsageRecording(t)
	version, err := sysstatVersion()
	if err != nil || version != rec.Sysstat {
		t.Skipf("installed iostat: %q, %v; the recording is of %s", version, err, rec.Sysstat)
	}
	for i, c := range usageCases {
		t.Run(c.name, func(t *testing.T) {
			got, err := runSysstat(usagePaths(t, c.args))
			if err != nil {
				t.Fatal(err)
			}
			got.Name, got.Args = c.name, c.args
			if c.version {
				got.Stdout = rec.Cases[i].Stdout
			}
			if diff := cmp.Diff(rec.Cases[i], got); diff != "" {
				t.Errorf("the installed iostat differs from the recording (-recorded +now):\n%s", diff)
			}
		})
	}
}

// Lines sysstat takes, where stortest took them wrongly for mistakes or
// the other way round: +f of a directory without a diskstats file, -p
// alone, --dec= with a character that is no digit (atoi's 0).
func TestIostatUsageAccepted(t *testing.T) {
	for _, args := range [][]string{
		{"-d", "-p", "ALL", "+f", "{dir}"},
		{"-d", "-p"},
		{"-d", "--dec=A"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			stdout := runOK(t, append([]string{"iostat"}, usagePaths(t, args)...))
			if !strings.Contains(stdout.String(), "Device") {
				t.Errorf("no device report:\n%s", stdout.String())
			}
		})
	}
}

func readUsageRecording(t *testing.T) usageRecording {
	t.Helper()
	b, err := os.ReadFile(usageFile)
	if err != nil {
		t.Fatal(err)
	}
	var rec usageRecording
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatalf("%s: %v", usageFile, err)
	}
	return rec
}

// sysstatVersion returns the first line of the installed iostat -V.
func sysstatVersion() (string, error) {
	out, err := exec.Command("iostat", "-V").Output()
	if err != nil {
		return "", err
	}
	first, _, _ := strings.Cut(string(out), "\n")
	return first, nil
}

// runSysstat runs the installed iostat, as sysstat's suite does (LC_ALL=C).
func runSysstat(args []string) (usageRecorded, error) {
	cmd := exec.Command("iostat", args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C", "POSIXLY_CORRECT=", "S_TIME_FORMAT=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		return usageRecorded{}, err
	}
	return usageRecorded{Exit: code, Stdout: stdout.String(), Stderr: stderr.String()}, nil
}

// recordUsage rewrites the recording from the installed iostat.
func recordUsage(t *testing.T) {
	version, err := sysstatVersion()
	if err != nil {
		t.Fatalf("iostat -V: %v", err)
	}
	if !strings.Contains(version, " 12.6.") {
		t.Fatalf("the installed iostat is %q, not 12.6", version)
	}
	rec := usageRecording{Sysstat: version}
	for _, c := range usageCases {
		got, err := runSysstat(usagePaths(t, c.args))
		if err != nil {
			t.Fatal(err)
		}
		got.Name, got.Args = c.name, c.args
		rec.Cases = append(rec.Cases, got)
	}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(usageFile, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
