package fiojob

import (
	"errors"
	"fmt"
	"math/big"
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"stortest.dev/fio"
	"stortest.dev/workload"
)

// fio's $keywords in job-file values: fio 3.33 replaces $pagesize, $mb_memory
// and $ncpus in every option of a job file (not on the command line, where
// it fails parsing them) after ${NAME} expansion, each with a number of the
// host. When it replaced one and the option holds '+', '-', '*' or '/' (and
// no '\''), it has bc compute the value, in bc's integer arithmetic: an
// option of up to 127 characters with a value of up to 100 (longer ones go
// to the option's parser as they are). $mb_memory is a plain number, so
// filesize=$mb_memory/4 is that many bytes, as fio reads it.

// keywordValues are the replacements, in fio.Keywords' order: the page
// size, the physical memory in MiB (sysconf(_SC_PHYS_PAGES) times the page
// size, as glibc counts it from sysinfo's total RAM), and the configured
// CPUs (sysconf(_SC_NPROCESSORS_CONF)).
var keywordValues = sync.OnceValue(func() []string {
	page := int64(os.Getpagesize())
	var mem int64
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) == nil && page > 0 {
		pages := int64(uint64(si.Totalram) * uint64(si.Unit) / uint64(page))
		mem = pages * page
	}
	return []string{
		strconv.FormatInt(page, 10),
		strconv.FormatInt(mem/(1<<20), 10),
		strconv.Itoa(workload.ConfiguredCPUs()),
	}
})

// bcMaxLine and bcMaxValue are the longest option ("name=value") and value
// fio 3.33 hands to bc.
const (
	bcMaxLine  = 127
	bcMaxValue = 100
)

// replaceKeywords returns v, an option of a job file, with fio's $keywords
// replaced and, when fio would have bc compute it, computed; vals are the
// keywords' values (keywordValues()).
func replaceKeywords(name, v string, vals []string) (string, error) {
	replaced := false
	for i, k := range fio.Keywords {
		if strings.Contains(v, k) {
			v = strings.ReplaceAll(v, k, vals[i])
			replaced = true
		}
	}
	if !replaced || !strings.ContainsAny(v, "+-*/") || strings.Contains(v, "'") {
		return v, nil
	}
	if len(name)+1+len(v) > bcMaxLine || len(v) > bcMaxValue {
		return "", workload.Unsupported(fmt.Sprintf("%q after fio's $keywords: fio 3.33 hands an expression longer than %d characters (or an option longer than %d) to the option's parser unevaluated", v, bcMaxValue, bcMaxLine))
	}
	n, err := bcEval(v)
	if err != nil {
		return "", fmt.Errorf("%q after fio's $keywords: fio 3.33 has bc compute it, and %v (fio: \"failed parsing\")", v, err)
	}
	return n, nil
}

// bcMaxDigits is the longest number bc prints on one line (it breaks
// longer ones with a backslash, which fio then cannot read).
const bcMaxDigits = 69

// bcEval computes expr as bc does with scale=0: integers of any size, '+',
// '-', '*', '/' and '%' truncating toward zero, '^' (right-associative, a
// whole exponent), unary minus binding tighter than '^', and parentheses.
// Names (bc's variables, 0 when unset) and anything else are errors here.
func bcEval(expr string) (string, error) {
	e := bcParser{s: expr}
	x, err := e.sum()
	if err == nil {
		e.blank()
		if e.i < len(e.s) {
			err = fmt.Errorf("bc cannot read %q", e.s[e.i:])
		}
	}
	if err != nil {
		return "", err
	}
	s := x.String()
	if len(strings.TrimPrefix(s, "-")) > bcMaxDigits {
		return "", errors.New("bc prints its result over several lines")
	}
	return s, nil
}

type bcParser struct {
	s string
	i int
}

func (e *bcParser) blank() {
	for e.i < len(e.s) && (e.s[e.i] == ' ' || e.s[e.i] == '\t') {
		e.i++
	}
}

func (e *bcParser) peek() byte {
	e.blank()
	if e.i < len(e.s) {
		return e.s[e.i]
	}
	return 0
}

func (e *bcParser) sum() (*big.Int, error) {
	x, err := e.product()
	for err == nil {
		op := e.peek()
		if op != '+' && op != '-' {
			return x, nil
		}
		e.i++
		var y *big.Int
		if y, err = e.product(); err == nil {
			if op == '+' {
				x.Add(x, y)
			} else {
				x.Sub(x, y)
			}
		}
	}
	return nil, err
}

func (e *bcParser) product() (*big.Int, error) {
	x, err := e.power()
	for err == nil {
		op := e.peek()
		if op != '*' && op != '/' && op != '%' {
			return x, nil
		}
		e.i++
		var y *big.Int
		if y, err = e.power(); err != nil {
			break
		}
		switch {
		case op == '*':
			x.Mul(x, y)
		case y.Sign() == 0:
			err = errors.New("bc divides by zero")
		case op == '/':
			x.Quo(x, y)
		default:
			x.Rem(x, y)
		}
	}
	return nil, err
}

// maxBCExponent bounds '^' so that a job file cannot make the parser
// compute a huge power (its result would be too long for bc's line anyway).
const maxBCExponent = 1 << 12

func (e *bcParser) power() (*big.Int, error) {
	x, err := e.unary()
	if err != nil || e.peek() != '^' {
		return x, err
	}
	e.i++
	y, err := e.power()
	if err != nil {
		return nil, err
	}
	if y.Sign() < 0 { // 1/x^-y, truncated at scale 0
		switch {
		case x.Sign() == 0:
			return nil, errors.New("bc divides by zero")
		case x.CmpAbs(big.NewInt(1)) != 0:
			return x.SetInt64(0), nil
		case x.Sign() < 0 && y.Bit(0) == 0:
			return x.SetInt64(1), nil
		}
		return x, nil // 1, or -1 to an odd power
	}
	if !y.IsInt64() || y.Int64() > maxBCExponent {
		return nil, fmt.Errorf("exponent %s is too large", y)
	}
	return x.Exp(x, y, nil), nil
}

func (e *bcParser) unary() (*big.Int, error) {
	switch e.peek() {
	case '-':
		e.i++
		x, err := e.unary()
		if err != nil {
			return nil, err
		}
		return x.Neg(x), nil
	case '(':
		e.i++
		x, err := e.sum()
		if err != nil {
			return nil, err
		}
		if e.peek() != ')' {
			return nil, errors.New("bc finds no ')'")
		}
		e.i++
		return x, nil
	}
	start := e.i
	for e.i < len(e.s) && e.s[e.i] >= '0' && e.s[e.i] <= '9' {
		e.i++
	}
	if start == e.i {
		if start >= len(e.s) {
			return nil, errors.New("bc finds no number at the end")
		}
		return nil, fmt.Errorf("bc cannot read %q", e.s[start:])
	}
	x, _ := new(big.Int).SetString(e.s[start:e.i], 10)
	return x, nil
}
