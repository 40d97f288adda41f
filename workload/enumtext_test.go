package workload

import (
	"encoding"
	"fmt"
	"strings"
	"testing"
)

// TestEnumText pins what the fio enums marshal to and what their
// UnmarshalText errors say, valid or not.
func TestEnumText(t *testing.T) {
	rw, vk, co := RandRW, VerifyCRC32C, ContinueIO
	badRW, badVK, badCO := NumRW, NumVerifyKinds, ContinueOn(8)
	for _, c := range []struct {
		good, bad encoding.TextMarshaler
		text      string
		dst       encoding.TextUnmarshaler
		marshal   string // the error of bad.MarshalText
		parse     string // the start of dst.UnmarshalText's error on "bogus"
	}{
		{rw, badRW, "randrw", new(RW), "workload: invalid RW 10", `workload: unknown rw "bogus"`},
		{vk, badVK, "crc32c", new(VerifyKind), "workload: invalid VerifyKind 18", `workload: unknown verify "bogus"`},
		{co, badCO, "io", new(ContinueOn), "workload: invalid ContinueOn 8", `workload: continue_on_error "bogus": want none`},
	} {
		b, err := c.good.MarshalText()
		if err != nil || string(b) != c.text {
			t.Errorf("%v.MarshalText() = %q, %v; want %q", c.good, b, err, c.text)
		}
		if err := c.dst.UnmarshalText(b); err != nil || c.dst.(interface{ String() string }).String() != c.text {
			t.Errorf("UnmarshalText(%q) = %v, value %v", b, err, c.dst)
		}
		if _, err := c.bad.MarshalText(); err == nil || err.Error() != c.marshal {
			t.Errorf("MarshalText of an invalid value: %v; want %s", err, c.marshal)
		}
		if err := c.dst.UnmarshalText([]byte("bogus")); err == nil || !strings.HasPrefix(err.Error(), c.parse) {
			t.Errorf("UnmarshalText(bogus): %v; want %s...", err, c.parse)
		}
	}
}

// TestEnumNames pins the String of the enums named by a table, for a
// value in it and one past it.
func TestEnumNames(t *testing.T) {
	for _, c := range []struct {
		v    fmt.Stringer
		want string
	}{
		{RandTrimWrite, "randtrimwrite"}, {NumRW, "RW(10)"},
		{VerifyNone, "0"}, {NumVerifyKinds, "VerifyKind(18)"},
		{UnifiedBoth, "both"}, {NumUnifiedRW, "UnifiedRW(3)"},
		{ServiceNormal, "normal"}, {ServiceNormal + 1, "FileServiceKind(6)"},
	} {
		if got := c.v.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
	}
}
