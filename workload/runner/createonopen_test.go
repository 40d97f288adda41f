package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stortest.dev/workload"
)

// create_on_open with an engine that moves data (sync, as in
// mountpoint-s3's benchmark files): fio 3.33 lays nothing out, creates
// the file (mode 0600) when the job opens it and writes its region, which
// the writes fill. stortest runs it the same way: the same writes, the
// same file after, and no layout before (the job's first write finds an
// empty file).
func TestCreateOnOpenMatchesFio(t *testing.T) {
	fio := fioBinary(t)
	dir := t.TempDir()
	job := func(name string) string {
		return fmt.Sprintf("[w]\nfilename=%s\nsize=1m\nbs=64k\nrw=write\nioengine=sync\nfallocate=none\ncreate_on_open=1\n",
			filepath.Join(dir, name))
	}
	f := at(fioJSON(t, fio, job("fio.data")), "jobs", "0")
	fst, err := os.Stat(filepath.Join(dir, "fio.data"))
	require.NoError(t, err)

	jobs, err := parseFile(strings.NewReader(job("st.data")), "w.fio")
	require.NoError(t, err)
	var before int64 = -1
	res, err := RunJobs(context.Background(), jobs, workload.Options{OnStart: func(*workload.JobResult, int) {
		if st, err := os.Stat(filepath.Join(dir, "st.data")); err == nil {
			before = st.Size()
		}
	}})
	require.NoError(t, err)
	r := res.Jobs[0]
	require.NoError(t, r.Err)
	assert.Equal(t, at(f, "write", "total_ios"), float64(r.Dirs[workload.DirWrite].IOs))
	assert.Equal(t, at(f, "write", "io_bytes"), float64(r.Dirs[workload.DirWrite].Bytes))
	assert.Zero(t, before, "nothing laid out before the job")
	sst, err := os.Stat(filepath.Join(dir, "st.data"))
	require.NoError(t, err)
	assert.Equal(t, fst.Size(), sst.Size())
	assert.Equal(t, fst.Mode().Perm(), sst.Mode().Perm())
}
