package histlog

import "testing"

func TestDirection(t *testing.T) {
	for d := Read; d <= All; d++ {
		got, err := ParseDirection(d.String())
		if err != nil || got != d {
			t.Errorf("ParseDirection(%q) = %v, %v", d.String(), got, err)
		}
	}
	if s := Direction(9).String(); s != "Direction(9)" {
		t.Errorf("Direction(9).String() = %q", s)
	}
	if _, err := ParseDirection("randrw"); err == nil {
		t.Error("ParseDirection(randrw): no error")
	}
}
