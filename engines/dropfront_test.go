package engines

import (
	"slices"
	"testing"
)

// TestDropFront: the rest keeps its order at the front of the array,
// the freed tail holds no unit, and nothing is allocated.
func TestDropFront(t *testing.T) {
	a, b, c := &Unit{Offset: 1}, &Unit{Offset: 2}, &Unit{Offset: 3}
	q := []*Unit{a, b, c}
	q = dropFront(q, 1)
	if !slices.Equal(q, []*Unit{b, c}) || q[:3][2] != nil {
		t.Errorf("dropFront 1 of a, b, c: %v (array %v)", q, q[:3])
	}
	q = append(q, a)
	if n := testing.AllocsPerRun(100, func() { q = append(dropFront(q, 1), q[0]) }); n != 0 {
		t.Errorf("dropFront allocates %v times", n)
	}
}
