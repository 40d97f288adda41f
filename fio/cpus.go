package fio

import (
	"fmt"
	"slices"
	"strings"
)

// maxCPUs is the largest CPU number + 1 a list may name: the kernel's
// CPU_SETSIZE, fio's FIO_MAX_CPUS.
const maxCPUs = 1024

// ParseCPUList reads a cpus_allowed list as fio 3.33 does: comma-separated
// CPUs and ranges a-b, each number read as C's atoi reads it (leading
// digits, else 0), an empty entry ending the list. It returns the CPUs
// in order, once each.
func ParseCPUList(s string) ([]int, error) {
	var cpus []int
	for _, e := range strings.Split(strings.TrimSpace(s), ",") {
		if e == "" {
			break
		}
		lo, hi := e, ""
		if a, b, ok := strings.Cut(e, "-"); ok {
			lo, hi = a, b
			if i := strings.IndexByte(hi, '-'); i >= 0 {
				hi = hi[:i] // fio takes the last non-empty part; "a-b-" is a-b
			}
		}
		a := atoi(lo)
		b := a
		if hi != "" {
			b = atoi(hi)
		}
		for c := a; c <= b; c++ {
			if c >= maxCPUs {
				return nil, fmt.Errorf("CPU %d: at most %d CPUs", c, maxCPUs)
			}
			cpus = append(cpus, c)
		}
	}
	slices.Sort(cpus)
	return slices.Compact(cpus), nil
}

// atoi is C's atoi on the non-negative numbers of a CPU list: the leading
// digits after blanks, 0 without any.
func atoi(s string) int {
	s = strings.TrimLeft(s, " \t")
	n := 0
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9' && n < maxCPUs; i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}
