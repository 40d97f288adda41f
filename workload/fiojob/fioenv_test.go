package fiojob

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"stortest.dev/internal/testenv"
)

// unsetVar is an environment variable that no test sets.
const unsetVar = "STORTEST_TEST_NEVER_SET"

// fioParseOnly runs fio --parse-only on text as a job file (args
// instead, when text is empty) with unsetVar unset and returns whether
// fio accepts it and what it printed.
func fioParseOnly(t *testing.T, fio, text string, args ...string) (bool, string) {
	t.Helper()
	return fioOn(t, fio, text, append([]string{"--parse-only"}, args...)...)
}

// fioOn is testenv.FioOn: fio on text, in a temporary directory.
var fioOn = testenv.FioOn

// An unset ${NAME} in a job file is empty, as fio reads it; where that
// leaves a bad value the error names the variable, besides the file, the
// line and the option, and quotes the line as written, as fio does
// ("failed parsing bs=${NAME}"). fio 3.33 refuses and accepts the same
// files.
func TestParseFioUnsetVariable(t *testing.T) {
	if _, ok := os.LookupEnv(unsetVar); ok {
		t.Fatalf("%s is set", unsetVar)
	}
	t.Setenv("STORTEST_TEST_EMPTY", "")
	u := "${" + unsetVar + "}"
	for _, tc := range []struct {
		text   string
		line   int
		option string
		want   []string // in the message; nil: accepted
		unset  bool     // the message names unsetVar as not set
		own    bool     // a check of stortest's that fio does not make
	}{
		{text: "[j]\nsize=1m\nbs=" + u + "\n", line: 3, option: "bs",
			want: []string{"failed parsing bs=" + u}, unset: true},
		{text: "[j]\nsize=1m\nfilename=" + u + "\n", line: 3, option: "filename",
			want: []string{"failed parsing filename=" + u}, unset: true},
		{text: "[global]\nbs=" + u + "k\n[j]\nsize=1m\n", line: 2, option: "bs",
			want: []string{`"k"`}, unset: true},
		{text: "[j]\nrw=randrw\nsize=1m\nrwmixread=" + u + "0\n", line: 4, option: "rwmixread",
			want: []string{"without reads"}, unset: true, own: true},
		{text: "[j]\nsize=1m\nbs=${STORTEST_TEST_EMPTY}\n", line: 3, option: "bs",
			want: []string{"failed parsing bs=${STORTEST_TEST_EMPTY}"}},
		{text: "[j]\nsize=1m\nbs=4k" + u + "\n"},
	} {
		jobs, err := parseFile(strings.NewReader(tc.text), "u.fio")
		if tc.want == nil {
			if err != nil || jobs[0].BlockSize != 4096 {
				t.Errorf("%q: %v, %+v; want bs 4k", tc.text, err, jobs)
			}
		} else {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "u.fio" || pe.Line != tc.line || pe.Option != tc.option {
				t.Fatalf("%q: %#v, want a *ParseError at u.fio:%d, %s", tc.text, err, tc.line, tc.option)
			}
			msg := err.Error()
			want := slices.Clone(tc.want)
			if tc.unset {
				want = append(want, u+" is not set")
				if !slices.Equal(pe.Unset, []string{unsetVar}) {
					t.Errorf("%q: Unset = %q", tc.text, pe.Unset)
				}
			} else if len(pe.Unset) > 0 || strings.Contains(msg, "not set") {
				t.Errorf("%q: %v: names a variable that is set", tc.text, err)
			}
			for _, w := range want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q: %v, want %q in it", tc.text, err, w)
				}
			}
		}
		if fio, err := testenv.FioPath(); err == nil && !tc.own {
			ok, out := fioParseOnly(t, fio, strings.ReplaceAll(tc.text, "size=1m", "size=1m\nioengine=null"))
			if ok != (tc.want == nil) {
				t.Errorf("%q: fio accepts it: %v (%s)", tc.text, ok, out)
			}
			if tc.want != nil && tc.want[0][0] != '"' && !strings.Contains(out, tc.want[0]) {
				t.Errorf("%q: fio says %q, want %q", tc.text, out, tc.want[0])
			}
		}
	}
}

// fio expands no ${NAME} on the command line: the text stays as it is,
// and the refusal says so, naming it.
func TestParseFioArgsDollarVariable(t *testing.T) {
	u := "${" + unsetVar + "}"
	_, err := parseArgs([]string{"--name=j", "--size=1m", "--bs=" + u})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Arg != 2 || pe.Option != "bs" ||
		!strings.Contains(err.Error(), u) || !strings.Contains(err.Error(), "command line") {
		t.Fatalf("%v: want args[2], bs, naming %s and the command line", err, u)
	}
	if fio, err := testenv.FioPath(); err == nil {
		if ok, out := fioParseOnly(t, fio, "", "--name=j", "--ioengine=null", "--size=1m", "--bs="+u); ok || !strings.Contains(out, "failed parsing bs="+u) {
			t.Errorf("fio: accepted %v, %q", ok, out)
		}
	}
}

// An empty value is refused as fio refuses it: in a job file for every
// option that cannot be bare, on the command line for every option.
// filename= does not run on fio's default file name. fio 3.33 agrees on
// a sample.
func TestParseFioEmptyValue(t *testing.T) {
	for _, name := range FioOptions() {
		o := lookupOption(name)
		text := "[j]\nsize=1m\n" + name + "=\n"
		_, err := parseFile(strings.NewReader(text), "e.fio")
		_, argErr := parseArgs([]string{"--name=j", "--size=1m", "--" + name + "="})
		var pe *ParseError
		switch {
		case o.bare != nil:
			if err != nil {
				t.Errorf("%s=: %v (it may be bare)", name, err)
			}
		case !errors.As(err, &pe) || pe.Line != 3 || pe.Option != o.name || !strings.Contains(err.Error(), `"failed parsing `+name+`="`):
			t.Errorf("%s=: %v, want refused at e.fio:3 as fio refuses it", name, err)
		}
		if !errors.As(argErr, &pe) || pe.Arg != 2 || !strings.Contains(argErr.Error(), `"option `+o.name+` requires an argument"`) {
			t.Errorf("--%s=: %v, want refused at args[2] as fio refuses it", name, argErr)
		}
	}
	fio := fioBinary(t)
	for _, name := range []string{"filename", "bs", "size", "directory", "rw", "numjobs", "direct", "runtime", "write_bw_log", "write_lat_log"} {
		_, err := parseFile(strings.NewReader("[j]\nsize=1m\n"+name+"=\n"), "e.fio")
		ok, out := fioParseOnly(t, fio, "[j]\nioengine=null\nsize=1m\n"+name+"=\n")
		if ok != (err == nil) || (!ok && !strings.Contains(out, "failed parsing "+name+"=")) {
			t.Errorf("%s=: ours %v; fio accepts: %v (%s)", name, err, ok, out)
		}
		_, err = parseArgs([]string{"--name=j", "--size=1m", "--" + name + "="})
		ok, out = fioParseOnly(t, fio, "", "--name=j", "--ioengine=null", "--size=1m", "--"+name+"=")
		if ok != (err == nil) || (!ok && !strings.Contains(out, "option "+name+" requires an argument")) {
			t.Errorf("--%s=: ours %v; fio accepts: %v (%s)", name, err, ok, out)
		}
	}
}
