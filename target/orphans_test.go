package target

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/internal/owner"
	"stortest.dev/internal/proctest"
)

// fakeLoop is a loop device of a fixture /sys/block.
type fakeLoop struct {
	backing  string
	deleted  bool
	dev, ino uint64
	openErr  error
	entry    string // its sysfs backing_file, gone once detached
	detached bool
	closed   bool
}

func (l *fakeLoop) Backing() string                       { return l.backing }
func (l *fakeLoop) BackingDeleted() bool                  { return l.deleted }
func (l *fakeLoop) BackingID() (dev, ino uint64, _ error) { return l.dev, l.ino, nil }
func (l *fakeLoop) Detach() error                         { l.detached = true; return os.Remove(l.entry) }
func (l *fakeLoop) Close() error                          { l.closed = true; return nil }

// orphanFixture is a fake /sys/block and temporary directory.
type orphanFixture struct {
	t      *testing.T
	sys    string
	tmp    string
	loops  map[string]*fakeLoop // by /dev/loopN
	opened []string
}

func newOrphanFixture(t *testing.T) *orphanFixture {
	t.Helper()
	dir := t.TempDir()
	f := &orphanFixture{t: t, sys: filepath.Join(dir, "sys", "block"), tmp: filepath.Join(dir, "tmp"), loops: map[string]*fakeLoop{}}
	if err := os.MkdirAll(f.tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	return f
}

// file creates the file rel under the temporary directory and returns
// its path.
func (f *orphanFixture) file(rel string) string {
	f.t.Helper()
	p := filepath.Join(f.tmp, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("data"), 0o644); err != nil {
		f.t.Fatal(err)
	}
	return p
}

// loop makes /dev/loopN back onto path: its sysfs entry, and the device
// Clean opens, holding that file (with deleted, removed).
func (f *orphanFixture) loop(n int, path string, deleted bool) *fakeLoop {
	f.t.Helper()
	entry := filepath.Join(f.sys, fmt.Sprintf("loop%d", n), "loop", "backing_file")
	l := &fakeLoop{backing: path, deleted: deleted, entry: entry}
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err == nil {
		l.dev, l.ino = uint64(st.Dev), st.Ino
	}
	text := path
	if deleted {
		text += " (deleted)"
	}
	if err := os.MkdirAll(filepath.Dir(entry), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(entry, []byte(text+"\n"), 0o644); err != nil {
		f.t.Fatal(err)
	}
	f.loops[fmt.Sprintf("/dev/loop%d", n)] = l
	return l
}

func (f *orphanFixture) clean() ([]string, error) {
	s := OrphanScan{SysBlock: f.sys, TempDir: f.tmp, openLoop: func(dev string) (heldLoop, error) {
		f.opened = append(f.opened, dev)
		l, ok := f.loops[dev]
		if !ok {
			f.t.Fatalf("Clean opened %s, which the fixture does not have", dev)
		}
		if l.openErr != nil {
			return nil, l.openErr
		}
		return l, nil
	}}
	return s.Clean()
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func deadTag(t *testing.T) (tag string, pid int) {
	t.Helper()
	tag, err := proctest.DeadTag()
	if err != nil {
		t.Fatal(err)
	}
	if owner.Alive(tag) {
		t.Fatalf("the child of tag %s is still alive", tag)
	}
	pid, _, _ = owner.Split(tag)
	return tag, pid
}

// Clean detaches loop devices and removes scratch files of a process that
// is gone, and go test TempDirs left empty by that; it leaves alone what a
// live process owns, kept (untagged) files, directories that are not
// empty or not go test TempDirs, and a device whose path here is another
// file.
func TestCleanOrphans(t *testing.T) {
	dead, pid := deadTag(t)
	live := owner.Tag()
	f := newOrphanFixture(t)
	name := func(tag string) string { return "stortest-scratch-" + tag + "-4711.img" }

	// Dead, over a file alone in a go test TempDir: all of it goes.
	deadLoop := f.file("TestA123/001/" + name(dead))
	l0 := f.loop(0, deadLoop, false)
	// Dead, backing file removed already.
	l1 := f.loop(1, filepath.Join(f.tmp, "TestB9/001", name(dead)), true)
	// Alive: this process.
	liveLoop := f.file("TestC5/001/" + name(live))
	f.loop(2, liveLoop, false)
	// Kept on purpose: no tag.
	keptLoop := f.file("TestD7/001/stortest-scratch-4711.img")
	f.loop(3, keptLoop, false)
	// Dead, but the path names another file here than the device holds
	// (another mount namespace's).
	otherNS := f.file("TestE8/001/" + name(dead))
	l4 := f.loop(4, otherNS, false)
	l4.ino++
	// Dead, on a directory that is no go test TempDir: the file goes,
	// the directory stays.
	shm := f.file("shm/" + name(dead))
	l5 := f.loop(5, shm, false)
	// Dead, no loop device, beside another file of its test: the file
	// and nothing else goes.
	deadFile := f.file("TestF1/002/" + name(dead))
	other := f.file("TestF1/002/notes.txt")
	// Dead, no loop device, in a TempDir whose test made another one: the
	// file and its <NNN> go, not the test's directory.
	deadFile2 := f.file("TestG2/001/" + name(dead))
	sibling := filepath.Join(f.tmp, "TestG2/002")
	if err := os.MkdirAll(sibling, 0o755); err != nil {
		t.Fatal(err)
	}
	// Dead, in the temporary directory itself (stortest run's scratch).
	runScratch := f.file(name(dead))
	// Alive, kept, and dead in a directory that is not a go test TempDir
	// (not found without a loop device).
	liveFile := f.file("TestH3/001/" + name(live))
	keptFile := f.file("TestH3/001/stortest-scratch-123.img")
	notTestDir := f.file("notes/001/" + name(dead))
	// A dead loop device whose open fails: reported, its file kept.
	failing := f.file("TestI4/001/" + name(dead))
	f.loop(6, failing, false).openErr = errors.New("engines: loop: open /dev/loop6: boom")

	lines, err := f.clean()
	if err == nil || !strings.Contains(err.Error(), "workload: orphans: engines: loop: open /dev/loop6: boom") {
		t.Errorf("Clean error = %v, want the failed open of /dev/loop6", err)
	}
	p := func(rel string) string { return filepath.Join(f.tmp, rel) }
	want := []string{
		fmt.Sprintf("orphan /dev/loop0 over %s of process %d (gone): detached /dev/loop0, removed %s, %s, %s", deadLoop, pid, deadLoop, p("TestA123/001"), p("TestA123")),
		fmt.Sprintf("orphan /dev/loop1 over %s (deleted) of process %d (gone): detached /dev/loop1", l1.backing, pid),
		fmt.Sprintf("orphan /dev/loop5 over %s of process %d (gone): detached /dev/loop5, removed %s", shm, pid, shm),
		fmt.Sprintf("orphan %s of process %d (gone), on no loop device: removed %s", runScratch, pid, runScratch),
		fmt.Sprintf("orphan %s of process %d (gone), on no loop device: removed %s", deadFile, pid, deadFile),
		fmt.Sprintf("orphan %s of process %d (gone), on no loop device: removed %s, %s", deadFile2, pid, deadFile2, p("TestG2/001")),
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("Clean lines (-want +got):\n%s", diff)
	}
	if !l0.detached || !l1.detached || !l5.detached {
		t.Errorf("dead devices detached: loop0 %v, loop1 %v, loop5 %v; want all", l0.detached, l1.detached, l5.detached)
	}
	if l4.detached || !l4.closed {
		t.Errorf("loop4, whose path is another file here: detached %v, closed %v; want let go without detaching", l4.detached, l4.closed)
	}
	wantOpened := []string{"/dev/loop0", "/dev/loop1", "/dev/loop4", "/dev/loop5", "/dev/loop6"}
	if diff := cmp.Diff(wantOpened, f.opened); diff != "" {
		t.Errorf("devices opened (-want +got):\n%s", diff)
	}
	for _, gone := range []string{deadLoop, p("TestA123"), shm, runScratch, deadFile, deadFile2, p("TestG2/001")} {
		if exists(gone) {
			t.Errorf("%s is left", gone)
		}
	}
	for _, kept := range []string{liveLoop, keptLoop, otherNS, p("shm"), other, sibling, liveFile, keptFile, notTestDir, failing, f.tmp} {
		if !exists(kept) {
			t.Errorf("%s was removed", kept)
		}
	}

	// A second scan finds nothing more to remove; it looks again at the
	// devices it left.
	f.opened = nil
	lines, _ = f.clean()
	if len(lines) != 0 {
		t.Errorf("second Clean: %q, want nothing", lines)
	}
	if want := []string{"/dev/loop4", "/dev/loop6"}; !slices.Equal(f.opened, want) {
		t.Errorf("second Clean opened %q, want %q", f.opened, want)
	}
}

// The scan roots default to the machine's: /sys/block, and $GOTMPDIR and
// os.TempDir(), symlinks resolved as the kernel prints paths.
func TestOrphanScanRoots(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOTMPDIR", link)
	t.Setenv("TMPDIR", "/tmp")
	got := OrphanScan{}.tempRoots()
	if want := []string{dir, "/tmp"}; !slices.Equal(got, want) {
		t.Errorf("roots %q, want %q", got, want)
	}
	t.Setenv("GOTMPDIR", "")
	if got := (OrphanScan{TempDir: link}).tempRoots(); !slices.Equal(got, []string{dir}) {
		t.Errorf("roots of TempDir %s: %q, want %q", link, got, []string{dir})
	}
}

// CleanOrphansOnce's output: a line per orphan and one for the error,
// each prefixed "stortest: ".
func TestOrphanReport(t *testing.T) {
	dead, pid := deadTag(t)
	f := newOrphanFixture(t)
	file := f.file("TestA1/001/stortest-scratch-" + dead + "-1.img")
	f.loop(0, f.file("TestB1/001/stortest-scratch-"+dead+"-1.img"), false) // whose open fails
	var b strings.Builder
	OrphanScan{SysBlock: f.sys, TempDir: f.tmp, openLoop: func(string) (heldLoop, error) { return nil, errors.New("boom") }}.report(&b)
	want := fmt.Sprintf("stortest: orphan %s of process %d (gone), on no loop device: removed %s, %s, %s\n"+
		"stortest: workload: orphans: boom\n", file, pid, file, filepath.Dir(file), filepath.Dir(filepath.Dir(file)))
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
}

// Clean removes, whole, the artifact directories of a process that is
// gone, and leaves a live process's, an untagged (kept) one, and a
// symbolic link or a file of such a name alone.
func TestCleanOrphanArtifacts(t *testing.T) {
	dead, pid := deadTag(t)
	live := owner.Tag()
	f := newOrphanFixture(t)
	p := func(rel string) string { return filepath.Join(f.tmp, rel) }

	deadDir := "stortest-artifacts-" + dead + "-1234"
	f.file(deadDir + "/TestA/rr.fio.json")
	f.file(deadDir + "/TestA/rr.summary.txt")
	f.file(deadDir + "/TestA/sub/rr_clat_hist.1.log")
	deadEmpty := p("stortest-artifacts-" + dead + "-99")
	if err := os.Mkdir(deadEmpty, 0o755); err != nil {
		t.Fatal(err)
	}
	liveFile := f.file("stortest-artifacts-" + live + "-5678/TestB/rr.fio.json")
	keptFile := f.file("stortest-artifacts-4711/TestC/rr.fio.json")
	// A link of a dead name to a directory elsewhere: the link and what
	// it points at stay.
	target := f.file("elsewhere/TestD/rr.fio.json")
	link := p("stortest-artifacts-" + dead + "-42")
	if err := os.Symlink(filepath.Dir(filepath.Dir(target)), link); err != nil {
		t.Fatal(err)
	}
	plain := f.file("stortest-artifacts-" + dead + "-43")
	// Inside a go test TempDir: not where NewArtifactDir puts them.
	nested := f.file("TestE1/001/stortest-artifacts-" + dead + "-7/x")

	lines, err := f.clean()
	if err != nil {
		t.Errorf("Clean: %v", err)
	}
	want := []string{
		fmt.Sprintf("orphan artifacts %s of process %d (gone): removed it and the 3 files in it", p(deadDir), pid),
		fmt.Sprintf("orphan artifacts %s of process %d (gone): removed it and the 0 files in it", deadEmpty, pid),
	}
	slices.Sort(lines)
	slices.Sort(want)
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("Clean lines (-want +got):\n%s", diff)
	}
	for _, gone := range []string{p(deadDir), deadEmpty} {
		if exists(gone) {
			t.Errorf("%s is left", gone)
		}
	}
	for _, kept := range []string{liveFile, keptFile, target, link, plain, nested} {
		if !exists(kept) {
			t.Errorf("%s was removed", kept)
		}
	}
}

// NewArtifactDir makes its directory in $GOTMPDIR, named after this
// process, where Clean looks.
func TestNewArtifactDir(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("GOTMPDIR", tmp)
	dir, err := NewArtifactDir()
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(dir) != tmp {
		t.Errorf("made %s, not in $GOTMPDIR %s", dir, tmp)
	}
	if tag, ok := owner.Parse(filepath.Base(dir)); !ok || tag != owner.Tag() || !strings.HasPrefix(filepath.Base(dir), "stortest-artifacts-") {
		t.Errorf("name %s: tag %q, %v; want this process's %s", filepath.Base(dir), tag, ok, owner.Tag())
	}
	if lines, err := (OrphanScan{SysBlock: filepath.Join(tmp, "nosys"), TempDir: tmp}).Clean(); len(lines) != 0 || err != nil || !exists(dir) {
		t.Errorf("Clean of a live process's directory: %q, %v; still there: %v", lines, err, exists(dir))
	}
}
