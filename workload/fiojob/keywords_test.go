package fiojob

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bcEval computes what bc prints for the expressions fio hands it, and
// refuses what bc cannot compute (a unit suffix, a division by zero) or
// would read as a variable. Where bc is installed, its answers are the
// reference.
func TestBCEval(t *testing.T) {
	cases := []struct{ expr, want string }{
		{"7/2", "3"}, {"-7/2", "-3"}, {"-7%3", "-1"}, {"2^10", "1024"}, {"-2^2", "4"},
		{"2^3^2", "512"}, {"10*10*1000*24104", "2410400000"}, {"(5+3)*2-1", "15"},
		{"1-2-3", "-4"}, {"8/2/2", "2"}, {"7 % 3 * 2", "2"}, {"2^-1", "0"},
		{"(-1)^-3", "-1"}, {"(-1)^-2", "1"}, {"1^-5", "1"}, {"24104/4", "6026"},
		{"99999999999999999999*99999999999999999999", "9999999999999999999800000000000000000001"},
	}
	bad := []string{"4k", "x*4", "1/0", "0^-1", "(1+2", "1+", "", "1 2", "2^99999999"}
	bc, bcErr := exec.LookPath("bc")
	for _, c := range cases {
		got, err := bcEval(c.expr)
		require.NoError(t, err, c.expr)
		assert.Equal(t, c.want, got, c.expr)
		if bcErr == nil {
			cmd := exec.Command(bc)
			cmd.Stdin = strings.NewReader(c.expr + "\n")
			out, err := cmd.Output()
			require.NoError(t, err)
			assert.Equal(t, strings.TrimSpace(string(out)), c.want, "bc on %s", c.expr)
		}
	}
	for _, e := range bad {
		_, err := bcEval(e)
		assert.Error(t, err, e)
	}
}

// meminfoMiB is MemTotal of /proc/meminfo in MiB, counted in whole pages
// as glibc's sysconf(_SC_PHYS_PAGES) counts it.
func meminfoMiB(t *testing.T) int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		t.Skip("no /proc/meminfo")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			require.NoError(t, err)
			page := int64(os.Getpagesize())
			return kb * 1024 / page * page >> 20
		}
	}
	t.Skip("no MemTotal")
	return 0
}

// fio's $keywords in a job file become the host's numbers, computed by
// bc's rules when the value holds + - * /; the options print the
// computed value, as fio's "job options" do. On the command line fio
// does not replace them and fails parsing: refused, with the option.
func TestParseFioKeywords(t *testing.T) {
	mib := meminfoMiB(t)
	text := "[k]\nioengine=null\nsize=($mb_memory-$mb_memory%4)/4\nbs=$pagesize\nfilesize=$mb_memory\nnumjobs=$ncpus\n"
	jobs, err := parseFile(strings.NewReader(text), "k.fio")
	require.NoError(t, err)
	j := jobs[0]
	assert.Equal(t, mib/4, j.Size)
	assert.Equal(t, mib, j.FileSize)
	assert.Equal(t, int64(os.Getpagesize()), j.BlockSize)
	assert.Equal(t, keywordNCPUs(t), j.NumJobs)

	_, err = parseFile(strings.NewReader("[k]\nsize=$mb_memory*1m\n"), "k.fio")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "k.fio:2")
	assert.Contains(t, err.Error(), "bc")

	_, err = parseArgs([]string{"--name=k", "--size=$mb_memory/4"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "fails parsing")
}

func keywordNCPUs(t *testing.T) int {
	n, err := strconv.Atoi(keywordValues()[2])
	require.NoError(t, err)
	require.Positive(t, n)
	return n
}
