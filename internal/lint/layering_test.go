package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLayering(t *testing.T) {
	root, err := ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	vs, err := Check(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Error(v)
	}
}

// The checker itself catches each kind of violation in a made-up module.
func TestCheckFindsViolations(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                "module stortest.dev\n",
		"latency/ok.go":         "package latency\nimport \"math\"\nvar _ = math.Pi\n",
		"latency/up.go":         "package latency\nimport _ \"stortest.dev/workload\"\n",
		"latency/testing.go":    "package latency\nimport _ \"testing\"\n",
		"latency/ok_test.go":    "package latency\nimport _ \"testing\"\nimport _ \"stortest.dev/workload\"\n",
		"latency/sub/ok.go":     "package sub\nimport _ \"stortest.dev/latency\"\n",
		"engines/sys.go":        "package engines\nimport _ \"golang.org/x/sys/unix\"\n",
		"engines/third.go":      "package engines\nimport _ \"github.com/montanaflynn/stats\"\n",
		"report/transitive.go":  "package report\nimport _ \"stortest.dev/latency\"\nimport _ \"stortest.dev/internal/x\"\n",
		"report/down.go":        "package report\nimport _ \"stortest.dev/baselines\"\nimport _ \"stortest.dev/steady\"\n",
		"iostat/sideways.go":    "package iostat\nimport _ \"stortest.dev/steady\"\n",
		"regress/up.go":         "package regress\nimport _ \"stortest.dev/report\"\n",
		"stortest.go":           "package stortest\nimport _ \"testing\"\nimport _ \"stortest.dev/report\"\n",
		"cmd/stortest/main.go":  "package main\nimport _ \"stortest.dev\"\n",
		"newpkg/x.go":           "package newpkg\n",
		"testdata/ignored/x.go": "package x\nimport _ \"testing\"\n",
		"workload/cmdimport.go": "package workload\nimport _ \"stortest.dev/cmd/stortest\"\n",
		"engines/env.go":        "package engines\nimport _ \"stortest.dev/internal/testenv\"\n",
		"engines/env_test.go":   "package engines\nimport _ \"stortest.dev/internal/testenv\"\n",
		"internal/human/up.go":  "package human\nimport _ \"stortest.dev/internal/kernelfs\"\n",
		"internal/testenv/x.go": "package testenv\nimport _ \"stortest.dev/internal/kernelfs\"\n",
		"internal/newpkg/x.go":  "package newpkg\n",
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vs, err := Check(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.String())
	}
	want := []string{
		`engines/env.go:2: import "stortest.dev/internal/testenv": internal/testenv is a test helper`,
		`engines/third.go:2: import "github.com/montanaflynn/stats": engines may not import third-party`,
		`internal/human/up.go:2: import "stortest.dev/internal/kernelfs": internal/human may not import internal/kernelfs: imports must point down the README's package table`,
		`internal/newpkg/x.go:1: import "": package directory "internal/newpkg" is not in the layering table`,
		`iostat/sideways.go:2: import "stortest.dev/steady": iostat may not import steady`,
		`latency/testing.go:2: import "testing": only package stortest and commands`,
		`latency/up.go:2: import "stortest.dev/workload": latency may not import workload`,
		`newpkg/x.go:1: import "": package directory "newpkg" is not in the layering table`,
		`regress/up.go:2: import "stortest.dev/report": regress may not import report`,
		`workload/cmdimport.go:2: import "stortest.dev/cmd/stortest": nothing imports commands`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d violations, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("violation %d:\n got %s\nwant %s...", i, got[i], want[i])
		}
	}
}

// The README's package table and Layers name the same layers: a package
// added to one and not the other, or a stale row, fails.
func TestReadmeTable(t *testing.T) {
	root, err := ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := ReadmePackages(string(readme))
	if err != nil {
		t.Fatal(err)
	}
	inReadme := map[string]bool{}
	for _, pkg := range rows {
		l := ""
		if pkg != "." {
			l = layerOf(pkg)
		}
		inReadme[l] = true
		if _, ok := Layers[l]; !ok {
			t.Errorf("README.md's package table lists %s, which internal/lint's Layers lacks", pkg)
		}
		if _, err := os.Stat(filepath.Join(root, pkg)); err != nil {
			t.Errorf("README.md's package table lists %s: %v", pkg, err)
		}
	}
	for l := range Layers {
		if !inReadme[l] {
			t.Errorf("internal/lint's Layers has %q, which README.md's package table lacks", layerName(l))
		}
	}
}

func TestReadmePackages(t *testing.T) {
	got, err := ReadmePackages("# x\n\n## Packages\n\n| package | what |\n|---|---|\n| [clock](clock) | c |\n| [stortest](.) | t |\n| [internal/human](internal/human) | h |\n\nImports...\n| [not](a table) | row |\n")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != "clock . internal/human" {
		t.Errorf("got %q", got)
	}
	if _, err := ReadmePackages("# no table\n"); err == nil {
		t.Error("a README without a package table: no error")
	}
}
