package stortest

import (
	"encoding/json"
	"os"
	"runtime"
	"strings"

	"stortest.dev/iostat"
	"stortest.dev/report"
	"stortest.dev/workload"
)

// hostProperties describe the machine and software of the whole test
// binary: the JUnit suite's properties.
func hostProperties(fsys iostat.FS) []report.Property {
	props := []report.Property{
		{Name: "stortest.version", Value: workload.Version},
		{Name: "go.version", Value: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH},
	}
	if h, err := iostat.LocalHost(fsys, timeNow()); err == nil {
		props = append(props,
			report.Property{Name: "host", Value: h.Nodename},
			report.Property{Name: "kernel", Value: h.Sysname + " " + h.Release + " " + h.Machine},
			report.Property{Name: "cpus", Value: itoa(h.CPUs)})
	}
	return props
}

// fingerprint describes what one run measured, so that runs compare
// like with like: the target, the devices under it with their model and
// firmware where sysfs knows them, the engine and the job (without its
// file name, which differs from run to run for loop devices).
func fingerprint(fsys iostat.FS, target *Dev, devices []string, job workload.Job) []report.Property {
	props := []report.Property{
		{Name: "fingerprint.target", Value: target.Kind.String() + " " + target.Path},
		{Name: "fingerprint.size", Value: itoa64(target.Size)},
	}
	if len(devices) > 0 {
		props = append(props, report.Property{Name: "fingerprint.devices", Value: strings.Join(devices, " ")})
		// The last device is the bottom of the stack: the disk.
		disk := devices[len(devices)-1]
		for _, f := range []struct{ name, file string }{
			{"fingerprint.model", "model"},
			{"fingerprint.firmware", "firmware_rev"}, // NVMe
			{"fingerprint.firmware", "rev"},          // SCSI, SATA
		} {
			if v := sysAttr(fsys, disk, f.file); v != "" && !hasProp(props, f.name) {
				props = append(props, report.Property{Name: f.name, Value: v})
			}
		}
	}
	props = append(props, report.Property{Name: "fingerprint.engine", Value: job.Engine})
	job.Filename = ""
	if b, err := json.Marshal(job); err == nil {
		props = append(props, report.Property{Name: "fingerprint.job", Value: string(b)})
	}
	return props
}

func sysAttr(fsys iostat.FS, disk, file string) string {
	b, err := os.ReadFile(fsys.SysPath("block", disk, "device", file))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func hasProp(props []report.Property, name string) bool {
	for _, p := range props {
		if p.Name == name {
			return true
		}
	}
	return false
}
