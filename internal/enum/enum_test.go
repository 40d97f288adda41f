package enum

import "testing"

type (
	small  uint8
	signed int
)

func TestName(t *testing.T) {
	names := []string{"zero", "", "two"}
	for _, c := range []struct {
		got, want string
	}{
		{Name(names, small(0), "small"), "zero"},
		{Name(names, small(2), "small"), "two"},
		{Name(names, small(1), "small"), "small(1)"}, // named ""
		{Name(names, small(3), "small"), "small(3)"},
		{Name(names, small(255), "small"), "small(255)"},
		{Name(names, signed(-1), "signed"), "signed(-1)"},
		{Name(names, signed(2), "signed"), "two"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
