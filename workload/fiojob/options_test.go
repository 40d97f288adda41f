package fiojob

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
	"stortest.dev/workload/validate"
)

func TestParseContinueOn(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want workload.ContinueOn
	}{{"none", workload.ContinueNone}, {"0", workload.ContinueNone}, {"read", workload.ContinueRead}, {"write", workload.ContinueWrite},
		{"io", workload.ContinueIO}, {"verify", workload.ContinueVerify}, {"all", workload.ContinueAll}, {"1", workload.ContinueAll}} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := workload.ParseContinueOn(tc.in)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	_, err := workload.ParseContinueOn("reads")
	assert.ErrorContains(t, err, "want none, read, write, io, verify, all")

	// A job file sets it; String, JSON and the parser agree.
	jobs, err := parseFile(strings.NewReader("[j]\nfilename=/dev/null\ncontinue_on_error=io\n"), "j.fio")
	require.NoError(t, err)
	require.Equal(t, workload.ContinueIO, jobs[0].ContinueOnError)
	assert.Contains(t, Format(jobs[0]), "continue_on_error=io\n")
	back, err := parseFile(strings.NewReader(Format(jobs[0])), "back.fio")
	require.NoError(t, err)
	assert.Equal(t, jobs[0], back[0])
	b, err := json.Marshal(jobs[0])
	require.NoError(t, err)
	assert.Contains(t, string(b), `"continue_on_error":"io"`)
	var fromJSON workload.Job
	require.NoError(t, json.Unmarshal(b, &fromJSON))
	assert.Equal(t, workload.ContinueIO, fromJSON.ContinueOnError)
	_, err = parseFile(strings.NewReader("[j]\nfilename=/dev/null\ncontinue_on_error=sometimes\n"), "bad.fio")
	var pe *ParseError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, 3, pe.Line)
	assert.Equal(t, "continue_on_error", pe.Option)
	assert.ErrorIs(t, validate.Job(&workload.Job{Name: "x", ContinueOnError: 8}), workload.ErrInvalid)
}

func TestLatencyOptionErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"[a]\nlatency_percentile=101\n", `t.fio:2: job "a": latency_percentile: 101 is out of range 0-100`},
		{"[a]\nlatency_percentile=x\n", `t.fio:2: job "a": latency_percentile: "x" is not a number`},
		{"[a]\nlatency_percentile=0\n", `t.fio:2: job "a": latency_percentile: 0 is not supported by stortest`},
		{"[a]\nrw=read\nlatency_target=1q\n", `t.fio:3: job "a": latency_target: invalid time`},
		{"[a]\nmax_latency=1,2,3,4\n", `t.fio:2: job "a": max_latency: "1,2,3,4" has more than 3 values`},
		{"[a]\nlatency_target=1ms\nioengine=libaio\niodepth=4\nio_submit_mode=offload\n", `t.fio:2: job "a": latency_target: with io_submit_mode=offload is not supported by stortest`},
	} {
		_, err := parseFile(strings.NewReader(tc.in), "t.fio")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.in, err, tc.want)
		}
	}
	// No longer refused by name.
	for _, name := range []string{"latency_target", "latency_window", "latency_percentile", "latency_run", "max_latency"} {
		assert.NotNil(t, lookupOption(name), "%s is not in the option table", name)
	}
}

// TestFioNamesMatchFio checks that every option and engine the installed
// fio 3.33 names is accepted or refused by name, never "unknown".
func TestFioNamesMatchFio(t *testing.T) {
	fio := fioBinary(t)
	out, err := exec.Command(fio, "--cmdhelp=all").Output()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		name, _, ok := strings.Cut(line, ":")
		if name = strings.TrimSpace(name); ok && name != "" && !strings.Contains(name, " ") {
			names = append(names, name)
		}
	}
	if len(names) < 200 {
		t.Fatalf("fio --cmdhelp=all named %d options", len(names))
	}
	engOut, _ := exec.Command(fio, "--enghelp").Output()
	for _, e := range strings.Fields(string(engOut))[3:] { // "Available IO engines:"
		if !slices.Contains(fioEngines, e) {
			t.Errorf("fio's engine %s is not in fioEngines", e)
		}
		eo, _ := exec.Command(fio, "--enghelp="+e).Output()
		for _, line := range strings.Split(string(eo), "\n") {
			name, _, ok := strings.Cut(line, ":")
			if name = strings.TrimSpace(name); ok && name != "" && !strings.Contains(name, " ") {
				names = append(names, name)
			}
		}
	}
	for _, n := range names {
		if lookupOption(n) == nil && unsupportedFio(n) == nil {
			t.Errorf("fio's option %s is neither accepted nor refused by name", n)
		}
	}
}

func TestParseFioWithArgs(t *testing.T) {
	file := "[global]\nbs=8k\n[a]\n[b]\nruntime=1\niodepth=2\n"
	jobs, err := parseFileArgs(strings.NewReader(file), "t.fio", []string{"--runtime=5", "-iodepth", "4", "--bs=16k", "--time_based"})
	if err != nil {
		t.Fatal(err)
	}
	want := norm(workload.Job{Name: "a", BlockSize: 8192, IODepth: 4, Runtime: 5 * time.Second, TimeBased: true},
		workload.Job{Name: "b", BlockSize: 8192, IODepth: 2, Runtime: time.Second, TimeBased: true})
	if fmt.Sprint(formatJobs(jobs)) != fmt.Sprint(formatJobs(want)) {
		t.Errorf("got\n%v\nwant\n%v", jobs, want)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--name=x"}, "args[0]: name: --name beside a job file"},
		{[]string{"--runtime=2", "--threads=1", "--donorname=x"}, "args[2]: fio option donorname (ioengine e4defrag) is not supported"},
		{[]string{"--output=x"}, "args[0]: fio command-line option --output is not a job option"},
		{[]string{"--iodepth=0"}, "args[0]: iodepth: 0 is less than 1"},
	} {
		_, err := parseFileArgs(strings.NewReader(file), "t.fio", tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
	}
	files, opts := SplitFioArgs([]string{"--runtime", "2", "a.fio", "--time_based", "--bs=4k", "b.fio"})
	if fmt.Sprint(files, opts) != "[a.fio b.fio] [--runtime 2 --time_based --bs=4k]" {
		t.Errorf("SplitFioArgs: %q %q", files, opts)
	}
}
