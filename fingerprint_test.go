package stortest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"stortest.dev/baselines"
	"stortest.dev/iostat"
	"stortest.dev/report"
	"stortest.dev/workload"
)

func TestFingerprint(t *testing.T) {
	job := workload.Job{Name: "j", Engine: "io_uring", RW: workload.RandRead, Filename: "/dev/loop7"}.Normalized()
	jobJSON := func() string {
		j := job
		j.Filename = ""
		b, err := j.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}()
	nvme := baselines.Fingerprint{Kind: "loop", Device: "loop7", Model: "loop", Backing: "/x/img",
		BackingDevice: "nvme0n1 (Samsung SSD 990 PRO 2TB, firmware 4B2QJXD7)", Kernel: "6.18.0", Engine: "io_uring"}
	// want is what every case has around its own properties (pairs of
	// name after "fingerprint." and value): the target and its size
	// first, the engine and the job last.
	want := func(own ...string) []report.Property {
		kv := append(append([]string{"target", "loop /dev/loop7", "size", "1048576"}, own...), "engine", "io_uring", "job", jobJSON)
		var props []report.Property
		for i := 0; i < len(kv); i += 2 {
			props = append(props, report.Property{Name: "fingerprint." + kv[i], Value: kv[i+1]})
		}
		return props
	}
	for _, tc := range []struct {
		name    string
		devices []string
		fp      baselines.Fingerprint
		want    []report.Property
	}{
		{"NVMe under a loop device", []string{"loop7", "nvme0n1"}, nvme, want(
			"devices", "loop7 nvme0n1",
			"device", "loop7",
			"model", "loop",
			"backing_device", "nvme0n1 (Samsung SSD 990 PRO 2TB, firmware 4B2QJXD7)",
			"kernel", "6.18.0",
		)},
		{"SCSI disk", []string{"sda"}, baselines.Fingerprint{Kind: "block", Device: "sda", Model: "QEMU HARDDISK", Firmware: "2.5+"}, want(
			"devices", "sda",
			"device", "sda",
			"model", "QEMU HARDDISK",
			"firmware", "2.5+",
		)},
		{"nothing known (tmpfs)", nil, baselines.Fingerprint{}, want()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dev := &Dev{Path: "/dev/loop7", Kind: KindLoop, Size: 1 << 20}
			got := fingerprint(dev, tc.devices, job, tc.fp)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if strings.Contains(jobJSON, "loop7") {
		t.Errorf("the job's fingerprint names the loop device, which changes from run to run: %s", jobJSON)
	}
}

func TestHostProperties(t *testing.T) {
	props := hostProperties(iostat.DefaultFS())
	for _, name := range []string{"stortest.version", "go.version", "host", "kernel", "cpus"} {
		if !hasProp(props, name) {
			t.Errorf("no %q in %v", name, props)
		}
	}
}
