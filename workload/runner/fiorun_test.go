package runner

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// fioOn runs fio with args and text as a job file after them in a temp
// dir and returns whether it succeeded and what it printed.
func fioOn(t *testing.T, fio, text string, args ...string) (bool, string) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "j.fio")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(fio, append(args, f)...)
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return err == nil, string(out)
}

// fioJSON runs fio 3.33 on text as a job file with --output-format=json
// (and args) and returns its decoded output; it stops the test (FailNow)
// when fio fails.
func fioJSON(t *testing.T, fio, text string, args ...string) map[string]any {
	t.Helper()
	ok, out := fioOn(t, fio, text, append([]string{"--output-format=json"}, args...)...)
	if !ok {
		t.Fatalf("fio failed on\n%s\n%s", text, out)
	}
	return jsonDoc(t, []byte(out))
}
