package fio

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"stortest.dev/internal/testenv"
)

func TestIsOption(t *testing.T) {
	for name, want := range map[string]bool{
		"bs": true, "blocksize": true, "iomem": true, "ss_dur": true, "hugepage-size": true, // names and aliases
		"hipri": true, "proto": true, "xnvme_be": true, // engine options
		"verifysort": true, "rwmixcycle": true, // deprecated
		"": false, "BS": false, "blcksize": false, "output-format": false, "include": false,
	} {
		if IsOption(name) != want {
			t.Errorf("IsOption(%q) = %v", name, !want)
		}
	}
	if !IsEngineOption("sqthread_poll") || IsEngineOption("bs") {
		t.Error("IsEngineOption: sqthread_poll is io_uring's, bs is fio's")
	}
	if !IsCommandLineOption("output-format") || !IsCommandLineOption("profile") || IsCommandLineOption("bs") {
		t.Error("IsCommandLineOption: output-format and profile are fio's, bs is a job option")
	}
	for alias, name := range recordedAliases(t) {
		if !slices.Contains(jobOptionNames, alias) || !slices.Contains(jobOptionNames, name) {
			t.Errorf("fio's option %s has alias %s: not both among the job options", name, alias)
		}
	}
	names := Options()
	if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Error("Options is not sorted and unique")
	}
	if len(names) < 330 {
		t.Errorf("Options has %d names; fio 3.33 has over 330", len(names))
	}
	names[0] = "changed"
	if Options()[0] == "changed" {
		t.Error("Options returns the package's own slice")
	}
}

// helpName matches the first line of fio --cmdhelp=NAME and of the
// lines of --cmdhelp=all and --enghelp=ENGINE: "name: help".
var helpName = regexp.MustCompile(`(?m)^ *([a-z0-9_-]+) *: `)

// TestOptionsMatchFio checks the names against the installed fio:
// --cmdhelp=all's options are all known, with their aliases; the other
// names are ones fio --cmdhelp shows; the deprecated names draw fio's
// "deprecated" warning; every engine's options (--enghelp) are known;
// fio --help's options are command-line options.
func TestOptionsMatchFio(t *testing.T) {
	fio := testenv.Fio(t, "the comparison with fio's option table")
	run := func(args ...string) string {
		out, _ := exec.Command(fio, args...).CombinedOutput()
		return string(out)
	}
	all := run("--cmdhelp=all")
	top := helpName.FindAllStringSubmatch(all, -1)
	if len(top) < 200 {
		t.Fatalf("fio --cmdhelp=all named %d options:\n%s", len(top), all)
	}
	for _, m := range top {
		if !IsOption(m[1]) || IsEngineOption(m[1]) {
			t.Errorf("fio --cmdhelp=all lists %s, not among the job options", m[1])
		}
	}

	// The aliases of --cmdhelp=all's options, as --cmdhelp=NAME shows
	// them (recorded: one fio process a name is slow), and the names
	// --cmdhelp=all leaves out (aliases, and options nested under
	// others), each through --cmdhelp.
	listed := map[string]bool{}
	for _, m := range top {
		listed[m[1]] = true
	}
	for _, name := range recordedAliases(t) {
		if !listed[name] {
			t.Errorf("testdata/fio333-aliases.txt has %s, which fio --cmdhelp=all does not list", name)
		}
	}
	for _, name := range jobOptionNames {
		if listed[name] {
			continue
		}
		out := run("--cmdhelp=" + name)
		m := helpName.FindStringSubmatch(out)
		switch {
		case strings.HasPrefix(out, "No such command") && name == "gpu_dev_id": // fio built with CUDA only
		case m == nil || !slices.Contains(jobOptionNames, m[1]):
			t.Errorf("fio --cmdhelp=%s: %q", name, out)
		case m[1] != name && !strings.Contains(out, "alias: "+name+"\n"):
			t.Errorf("fio --cmdhelp=%s shows %s, without %s as its alias: %q", name, m[1], name, out)
		}
	}

	dir := t.TempDir()
	for _, name := range deprecatedOptionNames {
		cmd := exec.Command(fio, "--parse-only", "--name=j", "--"+name+"=1")
		cmd.Dir = dir
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), "Option "+name+" is deprecated") {
			t.Errorf("fio --%s=1: %q, want fio's deprecation warning", name, out)
		}
	}

	engines := strings.Fields(run("--enghelp"))
	if len(engines) < 10 || engines[0] != "Available" {
		t.Fatalf("fio --enghelp: %q", engines)
	}
	for _, e := range engines[3:] { // "Available IO engines:"
		for _, m := range helpName.FindAllStringSubmatch(run("--enghelp="+e), -1) {
			if !IsEngineOption(m[1]) {
				t.Errorf("fio --enghelp=%s lists %s, not among the engine options", e, m[1])
			}
		}
	}

	help := regexp.MustCompile(`(?m)^ *--([a-z-]+)`).FindAllStringSubmatch(run("--help"), -1)
	if len(help) < 30 {
		t.Fatalf("fio --help named %d options", len(help))
	}
	for _, m := range help {
		if !IsCommandLineOption(m[1]) {
			t.Errorf("fio --help lists --%s, not among the command-line options", m[1])
		}
	}
}

// recordedAliases reads testdata/fio333-aliases.txt: alias -> name.
func recordedAliases(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("testdata/fio333-aliases.txt")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && !strings.HasPrefix(line, "#") {
			m[f[1]] = f[0]
		}
	}
	if len(m) < 20 {
		t.Fatalf("testdata/fio333-aliases.txt has %d aliases", len(m))
	}
	return m
}
