package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stortest.dev/workload"
)

// freeNetPort returns a port nothing listens on now ("tcp" or "udp"),
// with the next one free too (numjobs=2 uses port+1).
func freeNetPort(t *testing.T, network string) int {
	t.Helper()
	for range 50 {
		var ports [2]int
		var closers []func() error
		ok := true
		for i := range ports {
			addr := "127.0.0.1:0"
			if i > 0 {
				addr = fmt.Sprintf("127.0.0.1:%d", ports[0]+1)
			}
			if network == "udp" {
				c, err := net.ListenPacket("udp4", addr)
				if err != nil {
					ok = false
					break
				}
				closers = append(closers, c.Close)
				ports[i] = c.LocalAddr().(*net.UDPAddr).Port
			} else {
				l, err := net.Listen("tcp4", addr)
				if err != nil {
					ok = false
					break
				}
				closers = append(closers, l.Close)
				ports[i] = l.Addr().(*net.TCPAddr).Port
			}
		}
		for _, c := range closers {
			c()
		}
		if ok && ports[0] < 65535 {
			return ports[0]
		}
	}
	t.Fatal("no two free ports in a row")
	return 0
}

// runNet runs the job file text under stortest, bounded by a minute.
func runNet(t *testing.T, text string) *workload.Result {
	t.Helper()
	jobs, err := parseFile(strings.NewReader(text), "net.fio")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := RunJobs(ctx, jobs, workload.Options{})
	require.NoError(t, err)
	require.NoError(t, ctx.Err(), "the run did not end by itself")
	for _, j := range res.Jobs {
		require.NoError(t, j.Err, "job %s", j.Name)
	}
	return res
}

// fioNetJob is one job of fio's JSON output, as the net comparisons
// read it.
type fioNetJob struct {
	Name        string `json:"jobname"`
	Read, Write struct {
		IOs   uint64 `json:"total_ios"`
		Short uint64 `json:"short_ios"`
		Bytes uint64 `json:"io_bytes"`
	}
}

// runFioNet runs the job file text under fio, bounded by a minute (fio's
// receiver waits on forever when its sender is gone).
func runFioNet(t *testing.T, text string) []fioNetJob {
	t.Helper()
	bin := fioBinary(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "net.fio"), []byte(text), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--output-format=json", "--output=fio.json", "net.fio")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "fio: %s", out)
	b, err := os.ReadFile(filepath.Join(dir, "fio.json"))
	require.NoError(t, err)
	if i := strings.IndexByte(string(b), '{'); i > 0 {
		b = b[i:]
	}
	var doc struct{ Jobs []fioNetJob }
	require.NoError(t, json.Unmarshal(b, &doc), "%s", b)
	return doc.Jobs
}

// netio is fio's examples/netio.fio made size-bound (16 MiB, the
// runtime far off) on port.
func netio(port int) string {
	return fmt.Sprintf(`[global]
ioengine=net
port=%d
protocol=tcp
bs=4k
size=16m
runtime=60

[receiver]
listen
rw=read

[sender]
hostname=localhost
startdelay=1
rw=write
`, port)
}

// fio's examples/netio.fio, size-bound, moves under stortest what it
// moves under fio 3.33: the sender's writes and bytes are fio's, and
// the receiver receives them all, block for block. fio's receiver
// counts a partial receive as an I/O of its own (short_ios) and leaves
// its bytes out of io_bytes, so its counts exceed or fall short of the
// blocks by its short receives: stortest's receiver completes whole
// blocks, as many as fio's counts less its short ones, or more.
func TestNetioMatchesFio(t *testing.T) {
	const blocks, bytes = 4096, 16 << 20
	fio := runFioNet(t, netio(freeNetPort(t, "tcp")))
	res := runNet(t, netio(freeNetPort(t, "tcp")))
	require.Len(t, fio, 2)
	require.Len(t, res.Jobs, 2)
	fr, fs := fio[0], fio[1]
	or, os := res.Jobs[0].Dirs, res.Jobs[1].Dirs
	// The sender: fio's counts exactly.
	assert.Equal(t, uint64(blocks), fs.Write.IOs, "fio's sender")
	assert.Equal(t, fs.Write.IOs, os[workload.DirWrite].IOs, "sender writes")
	assert.Equal(t, fs.Write.Bytes, os[workload.DirWrite].Bytes, "sender bytes")
	// The receiver: every block, whole.
	assert.Equal(t, uint64(blocks), or[workload.DirRead].IOs, "receiver reads")
	assert.Equal(t, uint64(bytes), or[workload.DirRead].Bytes, "receiver bytes")
	assert.Zero(t, or[workload.DirRead].ShortIOs, "receiver short reads")
	assert.Zero(t, or[workload.DirWrite].IOs+os[workload.DirRead].IOs, "the other direction")
	// fio's receiver: its I/Os are its blocks plus its short receives.
	assert.LessOrEqual(t, fr.Read.IOs-fr.Read.Short, or[workload.DirRead].IOs, "fio's receiver, whole blocks")
	assert.GreaterOrEqual(t, fr.Read.IOs, or[workload.DirRead].IOs, "fio's receiver, I/Os")
	assert.LessOrEqual(t, fr.Read.Bytes, or[workload.DirRead].Bytes, "fio's receiver, bytes")
	if fr.Read.Short == 0 {
		assert.Equal(t, fr.Read.IOs, or[workload.DirRead].IOs, "no short receive: fio's receiver's I/Os")
		assert.Equal(t, fr.Read.Bytes, or[workload.DirRead].Bytes, "no short receive: fio's receiver's bytes")
	}
	t.Logf("fio: receiver %d I/Os (%d short) %d bytes, sender %d I/Os %d bytes", fr.Read.IOs, fr.Read.Short, fr.Read.Bytes, fs.Write.IOs, fs.Write.Bytes)
}

// A receiver that wants more than its sender sends ends when the sender
// closes, with what it sent (fio's waits on until its runtime, or for
// ever); clone i of numjobs=2 pairs on port+i; a unix socket carries
// the same stream.
func TestNetReceiverEndsWithSender(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s.sock")
	for _, tc := range []struct{ name, opts string }{
		{"tcp", fmt.Sprintf("protocol=tcp\nport=%d\n", freeNetPort(t, "tcp"))},
		{"unix", "protocol=unix\nfilename=" + sock + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			listen, host := "listen\n", "hostname=localhost\n"
			numjobs := "numjobs=2\n"
			if tc.name == "unix" {
				listen, host, numjobs = "", "", "" // a unix job that reads listens
			}
			text := "[global]\nioengine=net\nbs=8k\nruntime=60\n" + tc.opts + numjobs +
				"[receiver]\nrw=read\nsize=64m\n" + listen +
				"[sender]\nrw=write\nsize=1m\nstartdelay=500ms\n" + host
			start := time.Now()
			res := runNet(t, text)
			assert.Less(t, time.Since(start), 30*time.Second, "the run waited for the runtime")
			clones := len(res.Jobs) / 2
			for i := range clones {
				r, s := res.Jobs[i].Dirs, res.Jobs[clones+i].Dirs
				assert.Equal(t, uint64(128), s[workload.DirWrite].IOs, "sender %d", i)
				assert.Equal(t, s[workload.DirWrite].IOs, r[workload.DirRead].IOs, "receiver %d's reads", i)
				assert.Equal(t, s[workload.DirWrite].Bytes, r[workload.DirRead].Bytes, "receiver %d's bytes", i)
			}
		})
	}
}

// Over UDP the receiver starts at the sender's open message and ends at
// its close message, and what it counts plus the datagrams it found
// lost is at most what the sender sent.
func TestNetUDPRun(t *testing.T) {
	text := fmt.Sprintf(`[global]
ioengine=net
protocol=udp
port=%d
bs=1k
runtime=30
window_size=4m

[receiver]
rw=read
size=64m

[sender]
hostname=127.0.0.1
rw=write
size=1m
startdelay=500ms
`, freeNetPort(t, "udp"))
	res := runNet(t, text)
	r, s := res.Jobs[0].Dirs[workload.DirRead], res.Jobs[1].Dirs[workload.DirWrite]
	assert.Equal(t, uint64(1024), s.IOs, "datagrams sent")
	assert.Positive(t, r.IOs, "datagrams received")
	assert.LessOrEqual(t, r.IOs+r.DropIOs, s.IOs, "received and lost")
	assert.Less(t, res.Jobs[0].Runtime, 20*time.Second, "the receiver waited for its runtime: the close message was not seen")
}
