package target

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"stortest.dev/engines"
	"stortest.dev/internal/kernelfs"
	"stortest.dev/internal/owner"
)

// OrphanScan says where CleanOrphans looks for what dead stortest
// processes left behind. The zero value looks at this machine; tests
// point it at fixture trees.
type OrphanScan struct {
	// SysBlock is the sysfs directory of block devices; "" means
	// /sys/block. Its loop*/loop/backing_file entries name the attached
	// loop devices' backing files.
	SysBlock string
	// TempDir is where go test makes test binaries' TempDirs and where
	// scratch files go by default; "" means $GOTMPDIR (which t.TempDir
	// uses when set) and os.TempDir().
	TempDir string

	// openLoop takes hold of a loop device (engines.OpenLoop); tests of
	// fixture trees, whose devices do not exist, replace it.
	openLoop func(dev string) (heldLoop, error)
}

// heldLoop is what Clean needs of an opened loop device.
type heldLoop interface {
	Backing() string
	BackingDeleted() bool
	BackingID() (dev, ino uint64, err error)
	Detach() error
	Close() error
}

var _ heldLoop = (*engines.Loop)(nil)

func openLoop(dev string) (heldLoop, error) {
	l, err := engines.OpenLoop(dev)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return l, nil
}

// CleanOrphans removes what stortest processes that are gone left behind
// (killed, say, with SIGKILL before their cleanup ran): loop devices over
// scratch files named after their process (see NewScratch), the files,
// and then the go test TempDirs that held them, if that leaves them empty;
// and temporary artifact directories named after their process (see
// NewArtifactDir), whole.
// It returns a line for each orphan, saying what it was, which process
// left it, and what was removed. Scratch files kept on purpose carry no
// owner and are never touched; nor is anything of a process still
// running. See OrphanScan.Clean.
func CleanOrphans() ([]string, error) { return OrphanScan{}.Clean() }

var orphansOnce sync.Once

// CleanOrphansOnce runs CleanOrphans the first time it is called in the
// process, and writes each line, and an error, to w prefixed "stortest: ".
// Later calls do nothing. Targets call it before they make scratch files.
func CleanOrphansOnce(w io.Writer) {
	orphansOnce.Do(func() { OrphanScan{}.report(w) })
}

// report cleans up and writes what CleanOrphansOnce writes.
func (s OrphanScan) report(w io.Writer) {
	lines, err := s.Clean()
	for _, l := range lines {
		fmt.Fprintf(w, "stortest: %s\n", l)
	}
	if err != nil {
		fmt.Fprintf(w, "stortest: %v\n", err)
	}
}

// Clean finds and removes orphans in two passes.
//
// Loop devices: for each SysBlock/loop*/loop/backing_file whose base name
// is a scratch file's with the tag of a process that is gone, it opens the
// device, checks it still backs onto that file, and detaches it
// (LOOP_CLR_FD). It then removes the file, unless the kernel says it was
// removed already ("<path> (deleted)"). The kernel prints the path in the
// reader's mount namespace; a device whose path here is missing or another
// file (another container's) is left alone.
//
// Files: TempDir/stortest-scratch-<tag>-*.img and
// TempDir/<Test><digits>/<NNN>/stortest-scratch-<tag>-*.img (go test
// TempDirs) with a dead tag and no loop device are removed.
//
// Artifact directories: TempDir/stortest-artifacts-<tag>-* (NewArtifactDir)
// with a dead tag are removed with all they hold (os.RemoveAll, which
// follows no symbolic link). Only such a directory itself is removed, not
// a symbolic link of that name. Directories kept on purpose
// (-stortest.out, -test.artifacts, STORTEST_NOCLEANUP=1) carry no tag and
// are never touched.
//
// After removing a file in a go test TempDir (TempDir/<Test><digits>/<NNN>),
// Clean removes <NNN> and then <Test><digits> while each is empty (os.Remove
// of an empty directory; nothing is removed recursively), and no further.
// Errors do not stop the scan; they are joined.
func (s OrphanScan) Clean() ([]string, error) {
	c := &cleaner{open: s.openLoop, roots: s.tempRoots(), bound: map[string]bool{}}
	if c.open == nil {
		c.open = openLoop
	}
	entries, err := filepath.Glob(filepath.Join(cmp.Or(s.SysBlock, kernelfs.Default().SysPath("block")), "loop*", "loop", "backing_file"))
	if err != nil {
		panic(err) // the pattern is constant and well formed
	}
	for _, e := range entries {
		c.loop(e)
	}
	for _, root := range c.roots {
		for _, pat := range []string{owner.ScratchPrefix + "*.img", "*[0-9]/[0-9][0-9][0-9]*/" + owner.ScratchPrefix + "*.img"} {
			files, _ := filepath.Glob(filepath.Join(root, pat)) // only ErrBadPattern, and root may hold a '['
			for _, f := range files {
				c.file(f)
			}
		}
		dirs, _ := filepath.Glob(filepath.Join(root, artifactPrefix+"*"))
		for _, d := range dirs {
			c.artifacts(d)
		}
	}
	return c.lines, errors.Join(c.errs...)
}

// artifactPrefix begins the name of every directory NewArtifactDir makes.
const artifactPrefix = "stortest-artifacts-"

// NewArtifactDir makes a temporary directory for a test's artifacts in
// $GOTMPDIR, or os.TempDir() when that is unset (where go test makes
// TempDirs), named "stortest-artifacts-<tag>-<random>" after this process
// (internal/owner). The caller removes it when done; if the process dies
// first (SIGKILL, a test timeout's panic), CleanOrphans in a later process
// removes it. Without /proc the name carries no tag and nothing ever
// removes it but its caller.
func NewArtifactDir() (string, error) {
	pattern := artifactPrefix + "*"
	if tag := owner.Tag(); tag != "" {
		pattern = artifactPrefix + tag + "-*"
	}
	dir, err := os.MkdirTemp(cmp.Or(os.Getenv("GOTMPDIR"), os.TempDir()), pattern)
	if err != nil {
		return "", fmt.Errorf("workload: artifact directory: %w", err)
	}
	return dir, nil
}

// artifacts handles a directory of NewArtifactDir's name found in a
// temporary directory.
func (c *cleaner) artifacts(dir string) {
	tag, ok := owner.Parse(filepath.Base(dir))
	if !ok || owner.Alive(tag) {
		return
	}
	if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
		return // removed by another cleaner meanwhile, or not a directory
	}
	files := 0
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files++
		}
		return nil
	})
	if err := os.RemoveAll(dir); err != nil {
		c.fail("%w", err)
		return
	}
	pid, _, _ := owner.Split(tag)
	plural := "s"
	if files == 1 {
		plural = ""
	}
	c.lines = append(c.lines, fmt.Sprintf("orphan artifacts %s of process %d (gone): removed it and the %d file%s in it", dir, pid, files, plural))
}

// tempRoots returns the temporary directories to scan, as the kernel
// names paths (absolute, symlinks resolved).
func (s OrphanScan) tempRoots() []string {
	dirs := []string{s.TempDir}
	if s.TempDir == "" {
		dirs = []string{os.Getenv("GOTMPDIR"), os.TempDir()}
	}
	var roots []string
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		if real, err := filepath.EvalSymlinks(d); err == nil {
			d = real
		}
		if !slices.Contains(roots, d) {
			roots = append(roots, d)
		}
	}
	return roots
}

// cleaner holds one Clean's state.
type cleaner struct {
	open  func(dev string) (heldLoop, error)
	roots []string
	// bound holds the backing files of loop devices left attached (a
	// live owner's, or one that would not detach): never removed.
	bound map[string]bool
	lines []string
	errs  []error
}

func (c *cleaner) fail(format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf("workload: orphans: "+format, args...))
}

// deadOwner returns the pid of the process that made the scratch file
// path, if the file is a scratch file with an owner tag and that process
// is gone.
func deadOwner(path string) (pid int, ok bool) {
	base := filepath.Base(path)
	if !strings.HasPrefix(base, owner.ScratchPrefix) {
		return 0, false
	}
	tag, ok := owner.Parse(base)
	if !ok || owner.Alive(tag) {
		return 0, false
	}
	pid, _, _ = owner.Split(tag)
	return pid, true
}

// loop handles the loop device of one sysfs backing_file entry.
func (c *cleaner) loop(entry string) {
	b, err := os.ReadFile(entry)
	if err != nil {
		return // detached since the glob
	}
	name, deleted := strings.CutSuffix(strings.TrimSpace(string(b)), deletedSuffix)
	pid, ok := deadOwner(name)
	if !ok {
		c.bound[name] = true
		return
	}
	dev := kernelfs.Default().DevPath(filepath.Base(filepath.Dir(filepath.Dir(entry))))
	l, err := c.open(dev)
	if errors.Is(err, engines.ErrNotBound) {
		return // detached since the read, by another cleaner
	}
	if err != nil {
		c.bound[name] = true
		c.fail("%w", err)
		return
	}
	// From here the device stays attached to what l names until l lets go.
	deleted = l.BackingDeleted()
	if l.Backing() != name || !deleted && !sameFile(l, name) {
		// Attached to another file since the read, or the path names
		// another file here than the one the device holds.
		c.bound[name] = true
		l.Close()
		return
	}
	if err := l.Detach(); err != nil {
		c.bound[name] = true
		c.fail("%w", err)
		return
	}
	what := name
	if deleted {
		what += deletedSuffix
	}
	did := []string{"detached " + dev}
	if !deleted {
		did = append(did, c.remove(name)...)
	}
	c.lines = append(c.lines, fmt.Sprintf("orphan %s over %s of process %d (gone): %s", dev, what, pid, strings.Join(did, ", ")))
}

// sameFile reports whether path here is the file the device holds.
func sameFile(l heldLoop, path string) bool {
	dev, ino, err := l.BackingID()
	if err != nil {
		return false
	}
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return false
	}
	return uint64(st.Dev) == dev && st.Ino == ino
}

// file handles a scratch file found in a temporary directory.
func (c *cleaner) file(path string) {
	if c.bound[path] {
		return
	}
	pid, ok := deadOwner(path)
	if !ok {
		return
	}
	if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() {
		return
	}
	did := c.remove(path)
	if len(did) == 0 {
		return // removed by another cleaner meanwhile, or failed (in errs)
	}
	c.lines = append(c.lines, fmt.Sprintf("orphan %s of process %d (gone), on no loop device: %s", path, pid, strings.Join(did, ", ")))
}

// remove removes the file at path and then its go test TempDir, as far as
// it is empty, and returns what it removed.
func (c *cleaner) remove(path string) []string {
	if err := os.Remove(path); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.fail("%w", err)
		}
		return nil
	}
	removed := []string{"removed " + path}
	for _, d := range c.testDirs(filepath.Dir(path)) {
		if err := os.Remove(d); err != nil {
			// Not empty (the test made more), or removed by another
			// cleaner: either way, stop here.
			if !errors.Is(err, syscall.ENOTEMPTY) && !errors.Is(err, syscall.EEXIST) && !errors.Is(err, fs.ErrNotExist) {
				c.fail("%w", err)
			}
			break
		}
		removed = append(removed, d)
	}
	return removed
}

// testDirs returns dir and its parent, innermost first, when dir is a go
// test TempDir, root/<TestName><digits>/<NNN> (os.MkdirTemp's random
// digits, then the test's sequence number of at least three digits) for a
// scanned root; else nothing.
func (c *cleaner) testDirs(dir string) []string {
	for _, root := range c.roots {
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			continue
		}
		test, seq, ok := strings.Cut(rel, string(filepath.Separator))
		if !ok || !endsInDigit(test) || len(seq) < 3 || !allDigits(seq) {
			continue
		}
		return []string{dir, filepath.Join(root, test)}
	}
	return nil
}

func endsInDigit(s string) bool { return s != "" && s[len(s)-1] >= '0' && s[len(s)-1] <= '9' }

func allDigits(s string) bool {
	for _, r := range []byte(s) {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// deletedSuffix ends the kernel's name of a loop device's backing file
// that was removed.
const deletedSuffix = " (deleted)"
