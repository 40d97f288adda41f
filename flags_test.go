package stortest

import "testing"

// The flags are not given in these tests, so the environment decides.
func TestSettingsFromEnvironment(t *testing.T) {
	t.Setenv("STORTEST_DEVICE", "/dev/nvme9n1")
	t.Setenv("STORTEST_OUT", "/tmp/out")
	t.Setenv("STORTEST_JUNIT", "/tmp/junit.xml")
	if DeviceSetting() != "/dev/nvme9n1" || OutSetting() != "/tmp/out" || JUnitSetting() != "/tmp/junit.xml" {
		t.Errorf("settings %q %q %q", DeviceSetting(), OutSetting(), JUnitSetting())
	}
	for v, want := range map[string]bool{"1": true, "0": false, "": false, "true": false} {
		t.Setenv("STORTEST_UPDATE", v)
		if Update() != want {
			t.Errorf("STORTEST_UPDATE=%q: Update() = %v", v, !want)
		}
		t.Setenv("STORTEST_STRICT", v)
		if StrictSetting() != want {
			t.Errorf("STORTEST_STRICT=%q: StrictSetting() = %v", v, !want)
		}
	}
	t.Setenv("STORTEST_TOLERANCE", "*.iops=5%")
	if ToleranceSetting() != "*.iops=5%" {
		t.Errorf("ToleranceSetting() = %q", ToleranceSetting())
	}
}

func TestFlagsRegistered(t *testing.T) {
	for _, name := range []string{"stortest.device", "stortest.out", "stortest.update", "stortest.keep", "stortest.junit", "stortest.strict", "stortest.tolerance"} {
		if flagSet(name) {
			t.Errorf("-%s reads as given on the command line", name)
		}
	}
	if flagDevice == nil || flagOut == nil || flagUpdate == nil || flagJUnit == nil || flagStrict == nil || flagTolerance == nil {
		t.Fatal("flags not registered")
	}
}
