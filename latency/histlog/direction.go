package histlog

import "fmt"

// Direction is the ddir column of a histogram log: 0 read, 1 write,
// 2 trim, as fio numbers them. All is the series of every direction
// combined; it never appears in a log.
type Direction uint8

const (
	Read  Direction = 0
	Write Direction = 1
	Trim  Direction = 2
	// All combines reads, writes and trims (merged outputs only).
	All Direction = 3

	// NumDirections is the number of directions a log can hold.
	NumDirections = 3
)

var dirNames = [...]string{"read", "write", "trim", "all"}

func (d Direction) String() string {
	if int(d) < len(dirNames) {
		return dirNames[d]
	}
	return fmt.Sprintf("Direction(%d)", uint8(d))
}

// ParseDirection parses "read", "write", "trim" or "all".
func ParseDirection(s string) (Direction, error) {
	for i, n := range dirNames {
		if s == n {
			return Direction(i), nil
		}
	}
	return 0, fmt.Errorf("histlog: direction %q: want read, write, trim or all", s)
}
