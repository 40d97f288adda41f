package fiojob

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"stortest.dev/workload"
)

// workload's value parsers are package fio's, with workload's error
// contract: a malformed value matches workload.ErrInvalid and reads as fio's.
func TestValueErrorsMatchErrInvalid(t *testing.T) {
	_, err := ParseSize("1.5k")
	if !errors.Is(err, workload.ErrInvalid) || err.Error() != `invalid size "1.5k": fractions are not allowed` {
		t.Errorf("ParseSize(1.5k): %v", err)
	}
	if _, err := ParseTime("10sec", time.Second); !errors.Is(err, workload.ErrInvalid) {
		t.Errorf("ParseTime(10sec): %v", err)
	}
	if _, err := ParseBool("y"); !errors.Is(err, workload.ErrInvalid) {
		t.Errorf("ParseBool(y): %v", err)
	}
	if _, err := ParseSize("4k"); err != nil {
		t.Errorf("ParseSize(4k): %v", err)
	}
}

func TestParseCount(t *testing.T) {
	if got, err := ParseCount("1k", 1<<20); err != nil || got != 1024 {
		t.Errorf("ParseCount(1k) = %d, %v; want 1024 (fio takes size suffixes on every integer)", got, err)
	}
	_, err := ParseCount("65537", 65536)
	if err == nil || !strings.Contains(err.Error(), "larger than 65536") {
		t.Errorf("ParseCount above max: %v", err)
	}
	_, err = ParseCount("x", 10)
	if err == nil || !strings.Contains(err.Error(), "invalid number") {
		t.Errorf("ParseCount(x): %v, want it to say number", err)
	}
}

// TestSizesMatchFio runs the installed fio (null engine) on one job per
// size and checks that ParseSize reads each size as fio does, the "KiB"
// spelling (a power of 1000 in fio's default kb_base=1024) included.
func TestSizesMatchFio(t *testing.T) {
	fio := fioBinary(t)
	sizes := []string{"4096", "4k", "4K", "4kb", "4KB", "4ki", "4Ki", "4b", "0x10", "1m", "1mi", "1M", "4kib", "4KiB", "1MiB"}
	var jf strings.Builder
	jf.WriteString("[global]\nioengine=null\nbs=1\nrw=read\n")
	for i, s := range sizes {
		fmt.Fprintf(&jf, "[s%d]\nsize=%s\n", i, s)
	}
	path := filepath.Join(t.TempDir(), "sizes.fio")
	if err := os.WriteFile(path, []byte(jf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(fio, "--output-format=json", path)
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("fio: %v", err)
	}
	var res struct {
		Jobs []struct {
			Name string `json:"jobname"`
			Read struct {
				IOBytes int64 `json:"io_bytes"`
			} `json:"read"`
		} `json:"jobs"`
	}
	if i := bytes.IndexByte(out, '{'); i >= 0 {
		out = out[i:]
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Jobs) != len(sizes) {
		t.Fatalf("fio output: %v (%d jobs)\n%s", err, len(res.Jobs), out)
	}
	for i, s := range sizes {
		fioBytes := res.Jobs[i].Read.IOBytes
		if got, err := ParseSize(s); err != nil || got != fioBytes {
			t.Errorf("%s: ParseSize = %d, %v; fio read %d bytes", s, got, err, fioBytes)
		}
	}
}
