package fiojob

import (
	"errors"
	"strings"
	"testing"

	"stortest.dev/fio"
	"stortest.dev/workload"
)

// The names workload refuses as fio's are fio's (package fio holds every
// fio 3.33 option name), and every fio option is accepted or refused by
// name, never taken for a typo.
func TestFioNamesAreFios(t *testing.T) {
	for name := range fioEngineOptions {
		if !fio.IsEngineOption(name) {
			t.Errorf("fioEngineOptions has %s, which is not a fio 3.33 engine option", name)
		}
	}
	for _, name := range fio.Options() {
		if lookupOption(name) == nil && unsupportedFio(name) == nil {
			t.Errorf("fio's option %s is neither accepted nor refused by name", name)
		}
	}
}

func TestParseFioRefusesEveryFioOptionByName(t *testing.T) {
	for _, opt := range []string{"rwmixcycle=1", "mem_align=4k", "softrandommap=1", "iomem_align=4k"} {
		_, err := parseFile(strings.NewReader("[a]\n"+opt+"\n"), "job.fio")
		name, _, _ := strings.Cut(opt, "=")
		want := "job.fio:2: job \"a\": fio option " + name + " is not supported by stortest"
		if !errors.Is(err, workload.ErrUnsupported) || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q (ErrUnsupported)", opt, err, want)
		}
	}
}
