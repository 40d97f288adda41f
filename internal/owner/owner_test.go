package owner

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

func TestTag(t *testing.T) {
	tag := Tag()
	pid, start, ok := Split(tag)
	if !ok || pid != os.Getpid() || start == 0 {
		t.Fatalf("Tag() = %q: Split = %d, %d, %v; want this pid %d and a start time", tag, pid, start, ok, os.Getpid())
	}
	if got, ok := Parse("stortest-scratch-" + tag + "-12345.img"); !ok || got != tag {
		t.Errorf("Parse of a name made with Tag = %q, %v; want %q", got, ok, tag)
	}
	if !Alive(tag) {
		t.Errorf("Alive(Tag()) = false for this very process")
	}
}

// A process that ran and was reaped is dead by its tag; a tag with a live
// pid but another start time (a reused pid) is dead too.
func TestAlive(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	tag, err := Of(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if !Alive(tag) {
		t.Errorf("Alive(%q) = false while the child runs", tag)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if Alive(tag) {
		t.Errorf("Alive(%q) = true after the child was killed and reaped", tag)
	}

	_, start, _ := Split(Tag())
	reused := strconv.Itoa(os.Getpid()) + "." + strconv.FormatUint(start+1, 10)
	if Alive(reused) {
		t.Errorf("Alive(%q) = true: this pid, another start time", reused)
	}
	// A tag of another pid namespace names a process this one cannot see:
	// never dead, whatever this namespace holds at its pid.
	if other := tag[:strings.LastIndexByte(tag, '.')+1] + "1"; !Alive(other) {
		t.Errorf("Alive(%q) = false for a reaped pid of another pid namespace", other)
	}
	// A tag of an older version, without its namespace, is looked up here.
	if old := tag[:strings.LastIndexByte(tag, '.')]; Alive(old) {
		t.Errorf("Alive(%q) = true for a reaped pid's tag without a namespace", old)
	}
	for _, bad := range []string{"", "x", "1.", "0.5", "01.5", "1.2.0"} {
		if Alive(bad) {
			t.Errorf("Alive(%q) = true for a malformed tag", bad)
		}
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"scratch file", "stortest-scratch-4242.998877-123456789.img", "4242.998877"},
		{"mount dir", "stortest-faults-1.0-77", "1.0"},
		{"one-word prefix", "x-7.8-y", "7.8"},
		{"prefix with a tag-like word", "a-1.2-3.4-9", "3.4"},
		{"kept scratch file", "stortest-scratch-123456789.img", ""},
		{"no random part", "stortest-scratch-4242.9988-", ""},
		{"no prefix", "-4242.9988-1", ""},
		{"tag only", "4242.9988", ""},
		{"leading zero pid", "p-042.1-1", ""},
		{"leading zero start", "p-42.01-1", ""},
		{"pid 0", "p-0.1-1", ""},
		{"pid over the limit", "p-4194305.1-1", ""},
		{"signed", "p-+4.1-1", ""},
		{"start overflows", "p-4.18446744073709551616-1", ""},
		{"with its pid namespace", "p-1.2.4026531836-1", "1.2.4026531836"},
		{"pid namespace 0", "p-1.2.0-1", ""},
		{"four numbers", "p-1.2.3.4-1", ""},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Parse(tc.in)
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("Parse(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
			}
		})
	}
}

func TestStartTime(t *testing.T) {
	tail := " S 1 1 1 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 266114 3133440 411 18446744073709551615 0 0"
	for _, tc := range []struct {
		name, in string
		want     uint64
		err      bool
	}{
		{"plain", "14014 (cat)" + tail, 266114, false},
		{"command with spaces and parentheses", "14014 (a) b (c)" + tail, 266114, false},
		{"command of ')' only", "14014 ())" + tail, 266114, false},
		{"no parenthesis", "14014 cat S 1", 0, true},
		{"short", "14014 (cat) S 1 1", 0, true},
		{"not a number", "14014 (cat)" + strings.Replace(tail, "266114", "x", 1), 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := StartTime([]byte(tc.in))
			if got != tc.want || (err != nil) != tc.err {
				t.Errorf("StartTime = %d, %v; want %d (error %v)", got, err, tc.want, tc.err)
			}
			if err != nil && !errors.Is(err, ErrStat) {
				t.Errorf("error %v is not ErrStat", err)
			}
		})
	}
}

// Parse never panics; what it accepts is a tag Tag could have written
// (Split takes it, and it prints back the same), found between the last
// two dashes with something on either side.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"stortest-scratch-4242.998877-123456789.img",
		"stortest-faults-1.0-77",
		"stortest-scratch-123456789.img",
		"a-1.2-3.4-9",
		"p-042.1-1",
		"--.-",
		"p-4194304.18446744073709551615-x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		tag, ok := Parse(name)
		if !ok {
			if tag != "" {
				t.Fatalf("not ok, but tag %q", tag)
			}
			return
		}
		pid, start, ns, ok := split(tag)
		if !ok {
			t.Fatalf("Parse(%q) = %q, which Split rejects", name, tag)
		}
		if format(pid, start, ns) != tag {
			t.Fatalf("tag %q prints back as %q", tag, format(pid, start, ns))
		}
		i := strings.LastIndex(name, "-"+tag+"-")
		if i < 1 || strings.Contains(name[i+len(tag)+2:], "-") || i+len(tag)+2 == len(name) {
			t.Fatalf("Parse(%q) = %q: not between a prefix and a random part", name, tag)
		}
	})
}

// StartTime never panics on any text.
func FuzzStartTime(f *testing.F) {
	f.Add([]byte("14014 (cat) S 14008 14008 5037 0 -1 4194304 101 0 0 0 0 0 0 0 20 0 1 0 266114 3133440 411 18446744073709551615"))
	f.Add([]byte("1 (a) b) S"))
	f.Add([]byte(")"))
	f.Fuzz(func(t *testing.T, stat []byte) {
		if _, err := StartTime(stat); err != nil && !errors.Is(err, ErrStat) {
			t.Fatalf("error %v is not ErrStat", err)
		}
	})
}
