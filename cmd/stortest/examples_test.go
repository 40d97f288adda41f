package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"stortest.dev/workload/fiojob"
)

// exampleCommands returns the stortest command lines of the files under
// dir (backslash continuations joined, shell variables and quotes
// replaced by plain words), each as its arguments after "stortest".
func exampleCommands(t *testing.T, dir string) map[string][][]string {
	t.Helper()
	out := map[string][][]string{}
	vars := regexp.MustCompile(`\$\{?[A-Za-z_]+\}?|\$\(ls [^)]*\)`)
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".yml") || strings.HasSuffix(p, ".yaml")) {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		text := strings.ReplaceAll(string(data), "\\\n", " ")
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue // a comment
			}
			line = strings.ReplaceAll(vars.ReplaceAllString(line, "x"), `"`, "")
			line = strings.ReplaceAll(line, "'", "")
			f := strings.Fields(line)
			for i, w := range f {
				if (w == "stortest" || strings.HasSuffix(w, "/stortest")) && i+1 < len(f) && !strings.HasPrefix(f[i+1], "-") &&
					!strings.Contains(f[i+1], "/") && !strings.HasPrefix(f[i+1], "./") {
					args := f[i+1:]
					for j, a := range args {
						if a == "|" || a == ">" || a == ">>" || a == "||" || a == "&&" {
							args = args[:j]
							break
						}
					}
					out[p] = append(out[p], args)
					break
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Every stortest command the fleet examples run exists and takes the
// options given: a renamed command or flag breaks this test, not a
// team's nightly fleet run.
func TestFleetExamplesCommands(t *testing.T) {
	cmds := exampleCommands(t, filepath.Join("..", "..", "examples", "fleet"))
	seen := map[string]bool{}
	for file, lines := range cmds {
		for _, args := range lines {
			c, rest := lookup(args)
			if c == nil {
				t.Errorf("%s: stortest %s: no such command", file, strings.Join(args, " "))
				continue
			}
			seen[c.name] = true
			if c.name == "run" {
				var fio []string
				for _, a := range rest {
					if name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "="); name != "progress" && name != "output-format" && name != "output" {
						fio = append(fio, a)
					}
				}
				if _, _, err := fiojob.Parse(nil, "", fiojob.Config{Args: fio}); err != nil {
					t.Errorf("%s: stortest run: %v", file, err)
				}
				continue
			}
			// The options parse: -h after them stops before any work.
			if code, _, errOut := run(t, append(append([]string{}, args...), "-h")...); code != 0 {
				t.Errorf("%s: stortest %s: exit %d: %s", file, strings.Join(args, " "), code, errOut)
			}
		}
	}
	for _, want := range []string{"run", "hist merge", "baseline import-fio", "baseline diff", "history add", "history changes"} {
		if !seen[want] {
			t.Errorf("no example runs stortest %s", want)
		}
	}
}
