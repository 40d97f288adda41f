package iostat

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ParseUptime parses /proc/uptime and returns the system's uptime in
// hundredths of a second, the unit sysstat measures its interval in.
// The kernel prints "SECONDS.CC IDLE.CC"; only the first field is used.
// name is used in errors only.
func ParseUptime(r io.Reader, name string) (uint64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 128), maxLineBytes)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return 0, fmt.Errorf("iostat: read %s: %w", name, err)
		}
		return 0, fmt.Errorf("iostat: parse %s line 1: %w: empty file", name, ErrParse)
	}
	f := strings.Fields(sc.Text())
	if len(f) == 0 {
		return 0, fmt.Errorf("iostat: parse %s line 1: %w: empty line", name, ErrParse)
	}
	sec, cent, ok := strings.Cut(f[0], ".")
	if !ok || len(cent) != 2 {
		return 0, fmt.Errorf("iostat: parse %s line 1: %w: field 1 (uptime) %q: want SECONDS.CC", name, ErrParse, f[0])
	}
	s, err1 := strconv.ParseUint(sec, 10, 64)
	c, err2 := strconv.ParseUint(cent, 10, 8)
	if err1 != nil || err2 != nil || s > (1<<64-1-99)/100 {
		return 0, fmt.Errorf("iostat: parse %s line 1: %w: field 1 (uptime) %q: want SECONDS.CC", name, ErrParse, f[0])
	}
	return s*100 + c, nil
}
