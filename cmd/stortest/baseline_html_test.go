package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"stortest.dev/internal/testenv"
)

// gunzipTo writes the decompressed src to dir/name and returns its path.
func gunzipTo(t *testing.T, src, dir, name string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	if err := os.WriteFile(out, testenv.Gunzip(t, src), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBaselineDiffHTML: --format html prints the comparison page, and the
// exit status still says the verdict (0: inconclusive without --strict,
// 3 with it).
func TestBaselineDiffHTML(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join("..", "..", "report", "page", "testdata")
	old := gunzipTo(t, filepath.Join(rec, "randread-30s-a.json.gz"), dir, "old.json")
	cur := gunzipTo(t, filepath.Join(rec, "randread-30s-shared.json.gz"), dir, "new.json")
	for _, tc := range []struct {
		args []string
		code int
	}{{nil, 0}, {[]string{"--strict"}, 3}} {
		var stdout, stderr bytes.Buffer
		args := append(append([]string{"baseline", "diff", "--format", "html"}, tc.args...), old, cur)
		if code := runMain(args, &stdout, &stderr); code != tc.code {
			t.Errorf("%v: exit %d, want %d: %s", tc.args, code, tc.code, stderr.String())
		}
		page := stdout.String()
		for _, s := range []string{"<!DOCTYPE html>", `id="cmp0-forest"`, `id="cmp0-exceed-read"`, `id="cmp0-iops-1"`,
			"<title>old</title>", "<title>new</title>", "inconclusive"} {
			if !strings.Contains(page, s) {
				t.Errorf("%v: the page does not hold %q", tc.args, s)
			}
		}
	}
	var stdout, stderr bytes.Buffer
	if code := runMain([]string{"baseline", "diff", "--format", "svg", old, cur}, &stdout, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), "want text, json, markdown or html") {
		t.Errorf("--format svg: exit %d: %s", code, stderr.String())
	}
}
