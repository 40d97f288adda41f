package fiojob

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/latency"
	"stortest.dev/workload"
	"stortest.dev/workload/fioout"
	"stortest.dev/workload/validate"
)

// checkJobs asserts what every accepted job must satisfy: it validates,
// Format reads back to itself, and JSON round-trips.
func checkJobs(t *testing.T, jobs []workload.Job) {
	t.Helper()
	for _, j := range jobs {
		if err := validate.Job(&j); err != nil {
			t.Fatalf("accepted an invalid job: %v\n%s", err, Format(j))
		}
		back := []workload.Job{roundTripJob(t, j)} // after the job it waits for, if any
		// Notes say how the text was read (a size with trailing text read
		// as fio does); the job printed back is clean text without them.
		j.Notes, back[0].Notes = nil, nil
		if diff := cmp.Diff([]workload.Job{j}, back); diff != "" {
			t.Fatalf("String round trip (-want +got):\n%s", diff)
		}
		b, err := json.Marshal(j)
		if err != nil {
			t.Fatal(err)
		}
		var fromJSON workload.Job
		if err := json.Unmarshal(b, &fromJSON); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if diff := cmp.Diff(j, fromJSON); diff != "" {
			t.Fatalf("JSON round trip (-want +got):\n%s", diff)
		}
	}
}

func FuzzParseFio(f *testing.F) {
	files, _ := filepath.Glob("../testdata/jobs/*.fio")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	for _, s := range []string{
		"[a]\n", "[global]\nbs=4k\n[a]\n[global]\nrw=write\n[b]\n", "[a]\nrate=1m,\nrate_iops=,5\n",
		"[a]\nbssplit=4k/10:8k:16k/\n", "[a] ; c\nfilename=/x\\:y # c\n", "[a]\nsize=${HOME}\n",
		"[a]\nrandom_distribution=normal:5:0.5\npercentile_list=99:0:1\n", "[a]\nrw=randrw\nrwmixread=0\n",
		"[a]\nbsrange=8k-1k\nruntime=1d\nss=iops:5\nss_dur=30\n", "[\n", "x=1\n", "[a]\ninclude b\n",
		"[a]\nsync_file_range=wait_before,write:4\nfdatasync=2\nend_fsync\ninvalidate=0\nfadvise_hint=random\n",
		"[0]\nbsrange=1-1A\n", "[a]\nlatency_target=2ms\nlatency_window=1s\nlatency_percentile=99.9\nlatency_run\nmax_latency=1ms,,5ms\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		jobs, err := parseFile(strings.NewReader(s), "fuzz.fio")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "workload: ") {
				t.Fatalf("error without the package prefix: %v", err)
			}
			return
		}
		checkJobs(t, jobs)
		_, given, err := Parse(strings.NewReader(s), "fuzz.fio", Config{})
		checkGiven(t, jobs, given, err)
	})
}

func FuzzParseFioArgs(f *testing.F) {
	for _, s := range []string{
		"--name=a", "--name=global\x00--bs=8k\x00--name=a\x00--name=b", "--rw=randrw\x00--name=a\x00--rwmixread=30",
		"-name\x00x\x00--bs\x0064k\x00--direct", "--name=a\x00--rate_iops=5,7", "job.fio", "--name=a\x00--output=x",
		"--name=a\x00--random_distribution=pareto:0.9:0.1\x00--verify=sha256\x00--verify_pattern=0xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		jobs, err := parseArgs(strings.Split(s, "\x00"))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "workload: ") {
				t.Fatalf("error without the package prefix: %v", err)
			}
			return
		}
		checkJobs(t, jobs)
		_, given, err := Parse(nil, "", Config{Args: strings.Split(s, "\x00")})
		checkGiven(t, jobs, given, err)
	})
}

// checkGiven checks the options as given of a parse that succeeded: one
// list per job, each option under a name the parser knows, and fio's
// JSON written from them. It stops the test (Fatal) on a failure.
func checkGiven(t *testing.T, jobs []workload.Job, given *workload.FioGiven, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("parsed once, failed with the options as given: %v", err)
	}
	if len(given.Jobs) != len(jobs) {
		t.Fatalf("%d jobs, options of %d", len(jobs), len(given.Jobs))
	}
	for _, opts := range append([][]workload.FioOption{given.Global}, given.Jobs...) {
		for _, o := range opts {
			if o.Name != "name" && lookupOption(o.Name) == nil {
				t.Fatalf("option %q given under a name the parser does not know", o.Name)
			}
		}
	}
	res := &workload.Result{FioOptions: given}
	for _, j := range jobs {
		for c := range max(j.NumJobs, 1) {
			res.Jobs = append(res.Jobs, workload.NewJobResult(j, c, latency.FioLayout))
		}
	}
	if err := fioout.WriteFioJSON(io.Discard, res, fioout.FormatJSON, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
}
func FuzzParseFioWithArgs(f *testing.F) {
	f.Add("[global]\nbs=8k\n[a]\n[b]\nstonewall\nruntime=1\n", "--runtime=5\x00-iodepth\x004")
	f.Add("[a]\nwait_for=a\n[b]\nwait_for=a\nverify=md5\nverify_backlog=2\n", "--filesize=1m\x00--directory=/tmp")
	f.Fuzz(func(t *testing.T, file, args string) {
		jobs, err := parseFileArgs(strings.NewReader(file), "fuzz.fio", strings.Split(args, "\x00"))
		if err == nil {
			checkJobs(t, jobs)
		}
	})
}
