package page

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"stortest.dev/regress"
)

// The pages opened in headless Chromium (Debian's chromium package): a
// screenshot that is not blank and no console message. The screenshots
// go to $STORTEST_CI_ARTIFACTS/page when it is set (.ci/run sets it to
// ci-artifacts/, which CI keeps), else to a temporary directory removed
// with the test.

// EnvCIArtifacts names the directory where tests leave files for CI to
// keep.
const EnvCIArtifacts = "STORTEST_CI_ARTIFACTS"

// chromiumPath finds Chromium, or skips the test (fails it under CI=true).
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	needTool(t, "chromium (Debian package chromium) is not installed: the pages are not opened in a browser")
	return ""
}

// shotDir is where screenshots go.
func shotDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv(EnvCIArtifacts); d != "" {
		dir := filepath.Join(d, "page")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	return t.TempDir()
}

// consoleRE matches the lines Chromium logs for a page's console
// messages with --enable-logging=stderr: uncaught exceptions,
// console.error, blocked loads.
var consoleRE = regexp.MustCompile(`:CONSOLE[:(]`)

type shot struct {
	img     image.Image
	path    string
	console []string
}

// screenshot opens page in headless Chromium and returns its screenshot
// (saved as dir/name.png) and the console lines it logged. dark asks for
// prefers-color-scheme: dark.
func screenshot(t *testing.T, bin, dir, name, page string, height int, dark bool) shot {
	t.Helper()
	tmp := t.TempDir()
	src := filepath.Join(tmp, name+".html")
	if err := os.WriteFile(src, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name+".png")
	args := []string{
		"--headless", "--no-sandbox", // root in CI has no sandbox
		"--disable-gpu", "--hide-scrollbars", "--no-first-run", "--disable-extensions",
		"--user-data-dir=" + filepath.Join(tmp, "profile"),
		"--enable-logging=stderr", "--v=0",
		"--window-size=1100," + itoa(height),
		"--virtual-time-budget=3000", // ms of page time before the shot
		"--screenshot=" + out,
	}
	if dark {
		args = append(args, "--force-dark-mode", "--blink-settings=preferredColorScheme=0")
	}
	args = append(args, "file://"+src)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Env = append(os.Environ(), "HOME="+tmp) // nothing written to the real home
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	err := cmd.Run()
	// Chromium's helpers live in our process group: end any left behind
	// and wait until the group is gone.
	if cmd.Process != nil {
		pgid := cmd.Process.Pid
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		for deadline := time.Now().Add(10 * time.Second); syscall.Kill(-pgid, 0) == nil; {
			if time.Now().After(deadline) {
				t.Errorf("chromium's process group %d outlived SIGKILL by 10s", pgid)
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatalf("chromium wrote no screenshot: %v\n%s", err, stderr.String())
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", out, err)
	}
	s := shot{img: img, path: out}
	for _, l := range strings.Split(stderr.String(), "\n") {
		if consoleRE.MatchString(l) {
			s.console = append(s.console, l)
		}
	}
	return s
}

// inkShare is the share of pixels that differ clearly from the top-left
// pixel (the page's background).
func inkShare(img image.Image) float64 {
	b := img.Bounds()
	br, bg, bb, _ := img.At(b.Min.X, b.Min.Y).RGBA()
	var ink, all int
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			all++
			if absDiff(r, br) > 0x2000 || absDiff(g, bg) > 0x2000 || absDiff(bl, bb) > 0x2000 {
				ink++
			}
		}
	}
	return float64(ink) / float64(all)
}

// colourPixels counts the pixels within a small distance of colour rgb
// (0xRRGGBB).
func colourPixels(img image.Image, rgb uint32) int {
	want := [3]uint32{rgb >> 16 & 0xff, rgb >> 8 & 0xff, rgb & 0xff}
	b := img.Bounds()
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if absDiff(r>>8, want[0]) < 24 && absDiff(g>>8, want[1]) < 24 && absDiff(bl>>8, want[2]) < 24 {
				n++
			}
		}
	}
	return n
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

// luma is the top-left pixel's brightness, 0..255.
func luma(img image.Image) uint32 {
	b := img.Bounds()
	r, g, bl, _ := img.At(b.Min.X, b.Min.Y).RGBA()
	return (299*(r>>8) + 587*(g>>8) + 114*(bl>>8)) / 1000
}

// TestChromiumCatchesScriptError proves the console check: a page with
// a deliberate script error must be caught.
func TestChromiumCatchesScriptError(t *testing.T) {
	bin := chromiumPath(t)
	page := "<!DOCTYPE html><html lang=\"en\"><head><title>bad</title></head><body><p>bad</p><script>noSuchFunction();</script></body></html>"
	s := screenshot(t, bin, t.TempDir(), "script-error", page, 300, false)
	if len(s.console) == 0 {
		t.Fatal("a page with an uncaught ReferenceError logged no console line: the console check sees nothing")
	}
	if !strings.Contains(strings.Join(s.console, "\n"), "noSuchFunction") {
		t.Errorf("console lines do not name the error: %q", s.console)
	}
}

// checkShot asserts a screenshot is not blank, shows a line in colour
// rgb, and that the page logged nothing to the console.
func checkShot(t *testing.T, s shot, rgb uint32) {
	t.Helper()
	t.Logf("screenshot: %s", s.path)
	if len(s.console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(s.console, "\n"))
	}
	if ink := inkShare(s.img); ink < 0.02 {
		t.Errorf("screenshot %s is blank: %.2f%% of pixels differ from the background", s.path, 100*ink)
	}
	if n := colourPixels(s.img, rgb); n < 200 {
		t.Errorf("screenshot %s: %d pixels of the series colour #%06x, want a drawn line", s.path, n, rgb)
	}
}

func TestRunPageInChromium(t *testing.T) {
	bin := chromiumPath(t)
	dir := shotDir(t)
	page := RenderRun(recordedRun(t))
	light := screenshot(t, bin, dir, "run", page, 4200, false)
	checkShot(t, light, 0x0072B2) // read, light palette
	if l := luma(light.img); l < 200 {
		t.Errorf("light page background luma %d, want white", l)
	}
	dark := screenshot(t, bin, dir, "run-dark", page, 1400, true)
	checkShot(t, dark, 0x56B4E9) // read, dark palette
	if l := luma(dark.img); l > 60 {
		t.Errorf("dark-mode page background luma %d, want dark", l)
	}
}

func TestDiffPageInChromium(t *testing.T) {
	bin := chromiumPath(t)
	base := loadBaseline(t, "randread-30s-a.json.gz")
	slow := loadBaseline(t, "randread-30s-shared.json.gz")
	page := RenderDiff("baseline diff", &Diff{Base: base, Current: slow, Report: regress.Compare(base, slow, regress.Config{})})
	checkShot(t, screenshot(t, bin, shotDir(t), "diff", page, 2400, false), 0x0072B2)
}

func TestMergePageInChromium(t *testing.T) {
	bin := chromiumPath(t)
	page := RenderMerge(recordedMerge(t))
	checkShot(t, screenshot(t, bin, shotDir(t), "merge", page, 2400, false), 0x0072B2)
}
