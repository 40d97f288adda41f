package workload

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The cmdprio options parse, print back, and belong to libaio and
// io_uring only.
func TestCmdPrioOptions(t *testing.T) {
	jobs, err := parseArgs([]string{"--name=p", "--ioengine=io_uring", "--size=1m", "--cmdprio_percentage=30,40",
		"--cmdprio_class=2", "--cmdprio=5"})
	require.NoError(t, err)
	c := jobs[0].CmdPrio
	assert.Equal(t, [2]int{30, 40}, c.Percentage)
	assert.Equal(t, [2]int{2, 2}, c.Class)
	assert.Equal(t, [2]int{5, 5}, c.Level)
	roundTrip(t, jobs[0])
	jobs, err = parseArgs([]string{"--name=p", "--ioengine=libaio", "--size=1m", "--cmdprio_bssplit=64k/25/1/1:64k/75/3/2:1024k/0"})
	require.NoError(t, err)
	assert.Equal(t, []PrioSplit{{65536, 25, 1, 1}, {65536, 75, 3, 2}, {1 << 20, 0, -1, -1}}, jobs[0].CmdPrio.BSSplit[0])
	roundTrip(t, jobs[0])
	_, err = parseArgs([]string{"--name=p", "--ioengine=psync", "--size=1m", "--cmdprio_percentage=30"})
	require.ErrorContains(t, err, "only libaio, io_uring")
	_, err = parseArgs([]string{"--name=p", "--ioengine=libaio", "--size=1m", "--cmdprio_bssplit=4k/80:4k/30"})
	require.ErrorContains(t, err, "more than 100")

	// fio 3.33's reading: three fields are refused; a percentage, class
	// and level above the top are clamped; a bare size is 0%; a third
	// list (trim) is ignored.
	_, err = parseArgs([]string{"--name=p", "--ioengine=libaio", "--size=1m", "--cmdprio_bssplit=4k/20/3"})
	require.ErrorContains(t, err, "invalid cmdprio_bssplit format")
	jobs, err = parseArgs([]string{"--name=p", "--ioengine=libaio", "--size=1m", "--cmdprio_bssplit=4k/200/9/9:8k,16k/5/2/1,4k/10"})
	require.NoError(t, err)
	assert.Equal(t, [2][]PrioSplit{{{4096, 100, 3, 7}, {8192, 0, -1, -1}}, {{16384, 5, 2, 1}}}, jobs[0].CmdPrio.BSSplit)
}
