package validate

import (
	"fmt"

	"stortest.dev/workload"
)

// validateExtra checks the fields of OffsetPattern, Measurement,
// RateFloor, Priority, Think, Ending and Zones of the normalized job: the
// option and why, or "".
func validateExtra(j *workload.Job) (string, string) {
	switch {
	case j.RWModifier != 0 && (j.RW.TrimWrites()):
		return "rw", "an offset modifier is not supported with " + j.RW.String()
	case j.RWSequencer != "" && j.RWSequencer != "sequential" && j.RWSequencer != "identical":
		return "rw_sequencer", fmt.Sprintf("unknown %q", j.RWSequencer)
	case j.PrioClass < 0 || j.PrioClass > 3:
		return "prioclass", fmt.Sprintf("%d is not 1, 2 or 3", j.PrioClass)
	case j.PrioLevel < 0 || j.PrioLevel > 7:
		return "prio", fmt.Sprintf("%d is not in [0, 7]", j.PrioLevel)
	case j.PrioLevel != 0 && j.PrioClass == 0:
		return "prio", "needs a class (prioclass)"
	case j.ThinkTime < 0 || j.ThinkTimeSpin < 0:
		return "thinktime", "negative"
	case j.ThinkTimeSpin > j.ThinkTime:
		return "thinktime_spin", fmt.Sprintf("%v is longer than thinktime %v", j.ThinkTimeSpin, j.ThinkTime)
	case j.ThinkTimeBlocks < 0:
		return "thinktime_blocks", fmt.Sprintf("negative (%d)", j.ThinkTimeBlocks)
	case j.NumberIOs < 0:
		return "number_ios", fmt.Sprintf("negative (%d)", j.NumberIOs)
	case j.ExitWhat != "" && j.ExitWhat != "group" && j.ExitWhat != "stonewall" && j.ExitWhat != "all":
		return "exit_what", fmt.Sprintf("unknown %q", j.ExitWhat)
	case j.ZoneMode != "" && j.ZoneMode != "none" && j.ZoneMode != "strided":
		return "zonemode", fmt.Sprintf("unknown %q", j.ZoneMode)
	case j.ZoneRange < 0 || j.ZoneSize < 0 || j.ZoneSkip < 0:
		return "zonesize", "negative"
	case j.Strided() && j.ZoneSize == 0:
		return "zonesize", "zonemode=strided needs zonesize"
	case j.Strided() && j.ZoneSize < j.MaxBlockSize():
		return "zonesize", fmt.Sprintf("%s is smaller than the block size %s", workload.FormatSize(j.ZoneSize), workload.FormatSize(j.MaxBlockSize()))
	case j.Strided() && (j.RWModifier != 0 || j.RW.TrimWrites()):
		return "zonemode", "strided zones do not take an offset modifier or trimwrite"
	case j.RateCycle < 0:
		return "rate_cycle", fmt.Sprintf("negative (%v)", j.RateCycle)
	case j.BlockAlign < 0:
		return "blockalign", fmt.Sprintf("negative (%d)", j.BlockAlign)
	case j.BlockAlign > 0 && j.Direct && j.BlockAlign%512 != 0:
		return "blockalign", fmt.Sprintf("%d is not a multiple of 512, which direct=1 needs", j.BlockAlign)
	}
	for d := range 3 {
		switch {
		case j.RateMin[d] < 0 || j.RateIOPSMin[d] < 0:
			return "rate_min", "negative"
		case j.RateMin[d] > 0 && j.Rate[d] > 0 && j.RateMin[d] > j.Rate[d],
			j.RateIOPSMin[d] > 0 && j.RateIOPS[d] > 0 && j.RateIOPSMin[d] > int64(j.RateIOPS[d]):
			return "rate_min", "the minimum rate exceeds the rate, " + workload.Dir(d).String() + " (fio refuses it too)"
		}
	}
	return "", ""
}
