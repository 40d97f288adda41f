package validate_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"stortest.dev/workload"
	"stortest.dev/workload/validate"
)

// fullJob sets every field away from its default: workload's test job,
// read from its golden JSON (go test ./workload -update rewrites it).
// It stops the test (Fatal) when the file cannot be read.
func fullJob(t *testing.T) workload.Job {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "full.json"))
	if err != nil {
		t.Fatal(err)
	}
	var j workload.Job
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatal(err)
	}
	return j
}

func TestValidate(t *testing.T) {
	if err := validate.Job(&workload.Job{Name: "defaults"}); err != nil {
		t.Errorf("defaults: %v", err)
	}
	full := fullJob(t)
	full.RateIOPS = [3]int{}
	full.Rate = [3]int64{1 << 20, 0, 0}
	if err := validate.Job(&full); err != nil {
		t.Errorf("full job: %v", err)
	}
	for _, tc := range []struct {
		name   string
		edit   func(*workload.Job)
		field  string
		reason string
	}{
		{"empty name", func(j *workload.Job) { j.Name = "" }, "name", "empty"},
		{"global name", func(j *workload.Job) { j.Name = "global-x" }, "name", "global"},
		{"name with comment", func(j *workload.Job) { j.Name = "a;b" }, "name", "comment"},
		{"name with newline", func(j *workload.Job) { j.Name = "a\nb" }, "name", "control"},
		{"long name", func(j *workload.Job) { j.Name = strings.Repeat("n", 256) }, "name", "longer than 255"},
		{"filename dollar", func(j *workload.Job) { j.Filename = "/tmp/$x" }, "filename", "'$'"},
		{"filename space", func(j *workload.Job) { j.Filename = " /tmp/x" }, "filename", "white space"},
		{"description hash", func(j *workload.Job) { j.Description = "a # b" }, "description", "comment"},
		{"engine", func(j *workload.Job) { j.Engine = "windowsaio" }, "ioengine", "unknown engine"},
		{"rw", func(j *workload.Job) { j.RW = workload.RandTrimWrite + 1 }, "rw", "invalid RW"},
		{"rwmix", func(j *workload.Job) { j.RWMixRead = 101 }, "rwmixread", "percentage"},
		{"bs negative", func(j *workload.Job) { j.BlockSize = -1 }, "bs", "outside"},
		{"bs huge", func(j *workload.Job) { j.BlockSize = 2 << 30 }, "bs", "outside"},
		{"bs and bsrange", func(j *workload.Job) {
			j.BlockSize = 4096
			j.BlockSizeRange = workload.BlockSizeRange{Min: 512, Max: 8192}
		}, "bs", "only one"},
		{"bsrange reversed", func(j *workload.Job) { j.BlockSizeRange = workload.BlockSizeRange{Min: 8192, Max: 512} }, "bsrange", "not a range"},
		{"bssplit sum", func(j *workload.Job) {
			j.BlockSizeSplit = []workload.BlockSizeSplit{{Size: 4096, Percent: 50}, {Size: 8192, Percent: 40}}
		}, "bssplit", "add up to 90"},
		{"bssplit size", func(j *workload.Job) { j.BlockSizeSplit = []workload.BlockSizeSplit{{Size: 0, Percent: 100}} }, "bssplit", "block size 0"},
		{"bssplit percent", func(j *workload.Job) {
			j.BlockSizeSplit = []workload.BlockSizeSplit{{Size: 512, Percent: 101}, {Size: 1024, Percent: -1}}
		}, "bssplit", "not a percentage"},
		{"iodepth", func(j *workload.Job) { j.IODepth = workload.MaxIODepth + 1 }, "iodepth", "outside"},
		{"batch above depth", func(j *workload.Job) { j.IODepth = 4; j.IODepthBatch = 8 }, "iodepth_batch_submit", "iodepth=4"},
		{"complete min above depth", func(j *workload.Job) { j.IODepth = 4; j.IODepthBatchCompleteMin = 5 }, "iodepth_batch_complete_min", "iodepth=4"},
		{"complete max below min", func(j *workload.Job) { j.IODepth = 8; j.IODepthBatchCompleteMin = 4; j.IODepthBatchCompleteMax = 2 },
			"iodepth_batch_complete_max", "iodepth_batch_complete_min=4"},
		{"iodepth_low above depth", func(j *workload.Job) { j.IODepth = 4; j.IODepthLow = 5 }, "iodepth_low", "iodepth=4"},
		{"numjobs", func(j *workload.Job) { j.NumJobs = -1 }, "numjobs", "outside"},
		{"size negative", func(j *workload.Job) { j.Size = -1 }, "size", "negative"},
		{"size below block", func(j *workload.Job) { j.Size = 1024 }, "size", "smaller than the block size"},
		{"offset negative", func(j *workload.Job) { j.Offset = -4096 }, "offset", "negative"},
		{"overflow", func(j *workload.Job) { j.Offset = 1 << 62; j.Size = 1 << 62 }, "size", "overflows"},
		{"loops", func(j *workload.Job) { j.Loops = -2 }, "loops", "less than 1"},
		{"fsync", func(j *workload.Job) { j.FsyncEvery = -1 }, "fsync", "negative"},
		{"runtime", func(j *workload.Job) { j.Runtime = -time.Second }, "runtime", "negative"},
		{"runtime ns", func(j *workload.Job) { j.Runtime = 1500 * time.Nanosecond }, "runtime", "microseconds"},
		{"ss_dur ns", func(j *workload.Job) { j.SSDur = time.Second + 1 }, "ss_dur", "microseconds"},
		{"time_based", func(j *workload.Job) { j.TimeBased = true }, "time_based", "needs a runtime"},
		{"rate and iops", func(j *workload.Job) { j.Rate[0] = 1 << 20; j.RateIOPS[1] = 100 }, "rate_iops", "mutually exclusive"},
		{"rate negative", func(j *workload.Job) { j.Rate[1] = -1 }, "rate", "negative"},
		{"zipf 1", func(j *workload.Job) { j.RandomDistribution = workload.Distribution{Kind: workload.DistZipf, Param: 1} }, "random_distribution", "!= 1"},
		{"pareto", func(j *workload.Job) {
			j.RandomDistribution = workload.Distribution{Kind: workload.DistPareto, Param: 1}
		}, "random_distribution", "(0, 1)"},
		{"center", func(j *workload.Job) {
			j.RandomDistribution = workload.Distribution{Kind: workload.DistNormal, Param: 5, Center: 2, HasCenter: true}
		}, "random_distribution", "center"},
		{"verify kind", func(j *workload.Job) { j.Verify = workload.NumVerifyKinds }, "verify", "invalid"},
		{"verify small block", func(j *workload.Job) { j.Verify = workload.VerifySHA256; j.BlockSize = 32 }, "verify", "header"},
		{"verify pattern", func(j *workload.Job) { j.VerifyPattern = "%o" }, "verify_pattern", "not supported"},
		{"hipri on libaio", func(j *workload.Job) { j.Engine = "libaio"; j.Hipri = true }, "hipri", "ioengine=libaio"},
		{"fixedbufs on psync", func(j *workload.Job) { j.FixedBufs = true }, "fixedbufs", "only io_uring"},
		{"fixedbufs both ways", func(j *workload.Job) { j.Engine = "io_uring"; j.FixedBufs, j.NoFixedBufs = true, true }, "fixedbufs", "both"},
		{"nowait on sync", func(j *workload.Job) { j.Engine = "sync"; j.NoWait = true }, "nowait", "does not take it"},
		{"percentiles order", func(j *workload.Job) { j.PercentileList = []float64{99, 50} }, "percentile_list", "ascending"},
		{"percentile range", func(j *workload.Job) { j.PercentileList = []float64{0} }, "percentile_list", "(0, 100]"},
		{"percentiles many", func(j *workload.Job) { j.PercentileList = make([]float64, 21) }, "percentile_list", "21 entries"},
		{"percentiles empty", func(j *workload.Job) { j.PercentileList = []float64{} }, "percentile_list", "0 entries"},
		{"steadystate", func(j *workload.Job) { j.SS = "iops" }, "steadystate", "criterion"},
		{"log_hist_msec", func(j *workload.Job) { j.LogHistMsec = -1 }, "log_hist_msec", "negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := workload.Job{Name: "j"}
			tc.edit(&j)
			err := validate.Job(&j)
			var fe *workload.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Validate() = %v, want a *FieldError", err)
			}
			if fe.Field != tc.field || !strings.Contains(fe.Reason, tc.reason) || !errors.Is(err, workload.ErrInvalid) {
				t.Errorf("Validate() = %q (field %s); want field %s, a reason mentioning %q, and ErrInvalid", err, fe.Field, tc.field, tc.reason)
			}
		})
	}
}
