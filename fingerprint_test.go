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
	for _, tc := range []struct {
		name    string
		devices []string
		fp      baselines.Fingerprint
		want    []report.Property
	}{
		{"NVMe under a loop device", []string{"loop7", "nvme0n1"}, nvme, []report.Property{
			{Name: "fingerprint.target", Value: "loop /dev/loop7"},
			{Name: "fingerprint.size", Value: "1048576"},
			{Name: "fingerprint.devices", Value: "loop7 nvme0n1"},
			{Name: "fingerprint.device", Value: "loop7"},
			{Name: "fingerprint.model", Value: "loop"},
			{Name: "fingerprint.backing_device", Value: "nvme0n1 (Samsung SSD 990 PRO 2TB, firmware 4B2QJXD7)"},
			{Name: "fingerprint.kernel", Value: "6.18.0"},
			{Name: "fingerprint.engine", Value: "io_uring"},
			{Name: "fingerprint.job", Value: jobJSON},
		}},
		{"SCSI disk", []string{"sda"}, baselines.Fingerprint{Kind: "block", Device: "sda", Model: "QEMU HARDDISK", Firmware: "2.5+"}, []report.Property{
			{Name: "fingerprint.target", Value: "loop /dev/loop7"},
			{Name: "fingerprint.size", Value: "1048576"},
			{Name: "fingerprint.devices", Value: "sda"},
			{Name: "fingerprint.device", Value: "sda"},
			{Name: "fingerprint.model", Value: "QEMU HARDDISK"},
			{Name: "fingerprint.firmware", Value: "2.5+"},
			{Name: "fingerprint.engine", Value: "io_uring"},
			{Name: "fingerprint.job", Value: jobJSON},
		}},
		{"nothing known (tmpfs)", nil, baselines.Fingerprint{}, []report.Property{
			{Name: "fingerprint.target", Value: "loop /dev/loop7"},
			{Name: "fingerprint.size", Value: "1048576"},
			{Name: "fingerprint.engine", Value: "io_uring"},
			{Name: "fingerprint.job", Value: jobJSON},
		}},
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
