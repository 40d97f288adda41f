package lint

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Module is the module path.
const Module = "stortest.dev"

// layer is one row of the README's package table.
type layer struct {
	// imports lists the module packages (by first path element) the layer
	// may import directly; what they may import is allowed too.
	imports []string
	// external lists third-party import path prefixes the layer may use.
	external []string
	// testing allows "testing" in non-test files (only the test-facing layers).
	testing bool
	// top layers may import any library package.
	top bool
	// testOnly packages (test helpers) are imported by _test.go files
	// only.
	testOnly bool
}

// Layers is the README's package table, top to bottom. Sub-packages
// belong to the layer of their first path element (latency/histlog is
// latency; workload/validate, the checks of a Job, is workload, as are
// workload/iogen, workload/runner, workload/fiojob and workload/fioout),
// but for internal/, where each package is a layer of its own
// (internal/human): internal packages sit below every other layer and may
// import only the internal packages their row lists. A package directory
// not in the table fails the check, so the table grows with the code.
var Layers = map[string]layer{
	"clock":     {external: []string{"golang.org/x/sys/"}},
	"fio":       {}, // fio's formats: a leaf, the standard library only
	"latency":   {imports: []string{"fio"}},
	"steady":    {imports: []string{"fio"}, external: []string{"github.com/montanaflynn/stats"}},
	"iostat":    {},
	"engines":   {imports: []string{"fio"}, external: []string{"golang.org/x/sys/"}},
	"workload":  {imports: []string{"engines", "clock", "latency", "steady", "iostat", "fio"}, external: []string{"github.com/google/go-cmp/" /* jobtest's diffs */}},
	"target":    {imports: []string{"engines", "iostat"}}, // the destructive-write guard (scratch targets to come)
	"faults":    {imports: []string{"engines"}, external: []string{"github.com/hanwen/go-fuse/v2/"}},
	"baselines": {imports: []string{"workload", "latency", "fio"}},
	"regress":   {imports: []string{"baselines", "latency"}, external: []string{"github.com/montanaflynn/stats", "gonum.org/v1/gonum/stat/distuv"}},
	"history":   {imports: []string{"baselines", "regress"}, external: []string{"gonum.org/v1/gonum/stat/distuv"}},
	"report":    {imports: []string{"regress", "workload", "iostat"}},
	"":          {top: true, testing: true}, // package stortest, the testing.TB API
	"cmd":       {top: true, testing: true},
	"examples":  {top: true, testing: true},

	// Shared helpers, below every layer above.
	"internal/human":    {}, // number formatters for people
	"internal/enum":     {}, // the names of enumerations' values
	"internal/kernelfs": {}, // the /proc, /sys and /dev seam
	"internal/owner":    {imports: []string{"internal/kernelfs"}},
	"internal/durable":  {},
	"internal/blkio":    {imports: []string{"internal/kernelfs"}, external: []string{"golang.org/x/sys/"}},
	"internal/tmpfs":    {},
	"internal/noise":    {}, // tests only: the gate's recorded sessions
	"internal/perfgate": {}, // tests only: stortest's own speed against fio's (make perf-gate)
	"internal/lint":     {},
	"internal/testenv":  {imports: []string{"internal/blkio", "internal/kernelfs"}, testOnly: true},
	"internal/proctest": {imports: []string{"internal/owner", "internal/kernelfs"}, testOnly: true},
}

// layerOf returns the layer a package directory (or an import path
// below the module) belongs to: its first path element, or its first two
// under internal/.
func layerOf(rel string) string {
	parts := strings.SplitN(rel, "/", 3)
	if parts[0] == "internal" && len(parts) > 1 {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}

// Violation is one import that breaks the layering.
type Violation struct {
	File   string // relative to the module root
	Line   int
	Import string
	Reason string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s:%d: import %q: %s", v.File, v.Line, v.Import, v.Reason)
}

// closure returns the module layers and external prefixes layer name may
// use, following its allowed imports transitively.
func closure(name string) (mods map[string]bool, ext []string) {
	mods = map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		l := Layers[n]
		ext = append(ext, l.external...)
		for _, m := range l.imports {
			if !mods[m] {
				mods[m] = true
				walk(m)
			}
		}
	}
	walk(name)
	return mods, ext
}

// Check walks the module rooted at root and returns every violation, in
// file order. Test files (_test.go) are not checked: tests may import
// whatever helps them, including the testing package.
func Check(root string) ([]Violation, error) {
	var out []Violation
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			base := d.Name()
			if rel != "." && (base == "testdata" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		dir := path.Dir(rel)
		name := ""
		if dir != "." {
			name = layerOf(dir)
		}
		l, known := Layers[name]
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if !known {
			out = append(out, Violation{File: rel, Line: 1, Reason: fmt.Sprintf("package directory %q is not in the layering table (internal/lint)", name)})
			return nil
		}
		mods, ext := closure(name)
		for _, is := range f.Imports {
			imp, _ := strconv.Unquote(is.Path.Value)
			line := fset.Position(is.Pos()).Line
			bad := func(reason string) {
				out = append(out, Violation{File: rel, Line: line, Import: imp, Reason: reason})
			}
			switch {
			case imp == "testing" || strings.HasPrefix(imp, "testing/"):
				if !l.testing {
					bad("only package stortest and commands may import testing outside tests")
				}
			case imp == Module || strings.HasPrefix(imp, Module+"/"):
				target := strings.TrimPrefix(strings.TrimPrefix(imp, Module), "/")
				tl := layerOf(target)
				internal := strings.HasPrefix(name, "internal/")
				switch {
				case tl == name && name != "":
					// within one layer (e.g. latency/histlog -> latency)
				case Layers[tl].testOnly:
					bad(fmt.Sprintf("%s is a test helper: only _test.go files import it", tl))
				case strings.HasPrefix(tl, "internal/") && !internal:
					// shared helpers sit below every layer
				case tl == "cmd" || tl == "examples":
					bad("nothing imports commands or examples")
				case l.top:
				case !mods[tl]:
					bad(fmt.Sprintf("%s may not import %s: imports must point down the README's package table (internal/lint.Layers)", layerName(name), layerName(tl)))
				}
			case !strings.Contains(strings.SplitN(imp, "/", 2)[0], "."):
				// standard library
			case l.top:
			case !slices.ContainsFunc(ext, func(pre string) bool { return strings.HasPrefix(imp, pre) }):
				bad(fmt.Sprintf("%s may not import third-party %s (allowed: %s)", layerName(name), imp, strings.Join(ext, ", ")))
			}
		}
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out, err
}

func layerName(n string) string {
	if n == "" {
		return "stortest"
	}
	return n
}

// ModuleRoot finds the directory holding go.mod, upwards from dir.
func ModuleRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("lint: no go.mod above %s", dir)
		}
		dir = parent
	}
}

// ReadmePackages returns the package paths of the README's package
// table (the first table after the "## Packages" heading, whose rows
// start "| [name](path) |"), in order: "clock", "latency/histlog", "."
// for the root package.
func ReadmePackages(readme string) ([]string, error) {
	_, after, ok := strings.Cut(readme, "\n## Packages\n")
	if !ok {
		return nil, fmt.Errorf("lint: README.md has no \"## Packages\" section")
	}
	var out []string
	inTable := false
	for line := range strings.SplitSeq(after, "\n") {
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		_, link, ok := strings.Cut(line, "](")
		if !ok || !strings.HasPrefix(line, "| [") {
			continue // the header and its rule
		}
		p, _, ok := strings.Cut(link, ")")
		if !ok {
			continue
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("lint: README.md's \"## Packages\" section has no table of packages")
	}
	return out, nil
}
