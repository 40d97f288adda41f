package histlog

import "testing"

func TestInterval(t *testing.T) {
	tests := []struct {
		name  string
		times []int64
		dirs  []Direction
		want  int64
	}{
		{"one direction", []int64{1000, 2000, 3000}, []Direction{0, 0, 0}, 1000},
		{"reads and writes at the same times", []int64{1015, 1016, 2001, 2001, 3001, 3002}, []Direction{0, 1, 1, 0, 0, 1}, 986},
		// fio keeps rows on a grid: after a late row the next comes early;
		// the median step is the interval, not the smallest.
		{"a late row", []int64{1015, 2001, 3511, 4051, 5001, 6002}, []Direction{0, 0, 0, 0, 0, 0}, 986},
		{"one row per direction", []int64{1000, 1000}, []Direction{0, 1}, 0},
		{"repeated times", []int64{1000, 1000, 1000}, []Direction{0, 0, 0}, 0},
	}
	for _, tc := range tests {
		h := &head{times: tc.times, dirs: tc.dirs}
		if got := h.interval(); got != tc.want {
			t.Errorf("%s: interval = %d, want %d", tc.name, got, tc.want)
		}
	}
}
