package replay

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Case is one recorded run of iostat over a range of samples.
type Case struct {
	Name  string
	Roots []string // sample roots, in order
	Env   []string // VAR=value set for the run
	Args  []string // iostat's arguments
	Line  int      // in the cases file
}

// ReadCases reads a cases file: one case a line, "#" comments, fields
// separated by blanks: the name, the samples as FIRST-LAST (root1 to
// rootLAST of dir), VAR=value settings, then iostat's arguments, where
// @TREE@ stands for the tree's directory (see ArgsIn):
//
//	x-p-ALL  1-7  -dx -p ALL 1 7
//	posix    1-2  POSIXLY_CORRECT=1  -d 1 2
//	alt      1-2  -p ALL -f @TREE@/cur/my_stats 1 2
func ReadCases(file string) ([]Case, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	dir := filepath.Dir(file)
	var out []Case
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		if len(fields) < 2 {
			return nil, fmt.Errorf("replay: %s:%d: want NAME FIRST-LAST [VAR=value...] ARGS...", file, line)
		}
		c := Case{Name: fields[0], Line: line}
		if seen[c.Name] {
			return nil, fmt.Errorf("replay: %s:%d: case %s twice", file, line, c.Name)
		}
		seen[c.Name] = true
		a, b, ok := strings.Cut(fields[1], "-")
		first, err1 := strconv.Atoi(a)
		last, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || first < 1 || last < first {
			return nil, fmt.Errorf("replay: %s:%d: samples %q: want FIRST-LAST", file, line, fields[1])
		}
		for k := first; k <= last; k++ {
			c.Roots = append(c.Roots, filepath.Join(dir, fmt.Sprintf("root%d", k)))
		}
		rest := fields[2:]
		for len(rest) > 0 && strings.Contains(rest[0], "=") && !strings.HasPrefix(rest[0], "-") {
			c.Env = append(c.Env, rest[0])
			rest = rest[1:]
		}
		c.Args = rest
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("replay: %s: %w", file, err)
	}
	return out, nil
}

// ArgsIn is the case's arguments for a tree in dir.
func (c Case) ArgsIn(dir string) []string {
	out := make([]string, len(c.Args))
	for i, a := range c.Args {
		out[i] = strings.ReplaceAll(a, "@TREE@", dir)
	}
	return out
}

var (
	bannerRE    = regexp.MustCompile(`(?m)^\S+ \S+ \(\S+\) \t\S+ \t_\S+_\t(\(\d+ CPU\))$`)
	hostKeyRE   = regexp.MustCompile(`(?m)^(\t+"(?:nodename|sysname|release|machine|date)": )"[^"]*",$`)
	stampRE     = regexp.MustCompile(`(?m)^\d\d/\d\d/\d\d \d\d:\d\d:\d\d$|^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}$`)
	jsonStampRE = regexp.MustCompile(`(?m)^(\t+"timestamp": )"[^"]*",$`)
)

// Normalize replaces what differs between two runs on the same samples
// (the host's name, kernel, machine and the date in the banner, and the
// times of -t) with placeholders, in text and in JSON output.
func Normalize(out []byte) []byte {
	out = bannerRE.ReplaceAll(out, []byte("SYSNAME RELEASE (NODENAME) \tDATE \t_MACHINE_\t$1"))
	out = hostKeyRE.ReplaceAll(out, []byte(`$1"HOST",`))
	out = stampRE.ReplaceAll(out, []byte("TIMESTAMP"))
	return jsonStampRE.ReplaceAll(out, []byte(`$1"TIMESTAMP",`))
}
