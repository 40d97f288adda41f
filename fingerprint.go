package stortest

import (
	"encoding/json"
	"runtime"
	"strings"

	"stortest.dev/baselines"
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
// like with like: the target, the devices under it, the identity of the
// disk as baselines.Probe reads it (model, serial, firmware; for a loop
// device its backing disk's), the engine and the job (without its file
// name, which differs from run to run for loop devices).
func fingerprint(target *Dev, devices []string, job workload.Job, fp baselines.Fingerprint) []report.Property {
	props := []report.Property{
		{Name: "fingerprint.target", Value: target.Kind.String() + " " + target.Path},
		{Name: "fingerprint.size", Value: itoa64(target.Size)},
	}
	if len(devices) > 0 {
		props = append(props, report.Property{Name: "fingerprint.devices", Value: strings.Join(devices, " ")})
	}
	for _, f := range []struct{ name, value string }{
		{"device", fp.Device}, {"vendor", fp.Vendor}, {"model", fp.Model}, {"serial", fp.Serial},
		{"firmware", fp.Firmware}, {"backing_device", fp.BackingDevice}, {"kernel", fp.Kernel},
	} {
		if f.value != "" {
			props = append(props, report.Property{Name: "fingerprint." + f.name, Value: f.value})
		}
	}
	props = append(props, report.Property{Name: "fingerprint.engine", Value: job.Engine})
	job.Filename = ""
	if b, err := json.Marshal(job); err == nil {
		props = append(props, report.Property{Name: "fingerprint.job", Value: string(b)})
	}
	return props
}

func hasProp(props []report.Property, name string) bool {
	for _, p := range props {
		if p.Name == name {
			return true
		}
	}
	return false
}
