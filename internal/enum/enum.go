// Package enum names the values of stortest's small enumerations: each
// type keeps one table of names indexed by value, and its String is Name.
package enum

import "strconv"

// Name returns the name of v in names, which are indexed by value, or
// typ(v), such as "Status(7)", for a value without one (outside names,
// or named "").
func Name[T ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32](names []string, v T, typ string) string {
	if v >= 0 && int64(v) < int64(len(names)) && names[v] != "" {
		return names[v]
	}
	return typ + "(" + strconv.FormatInt(int64(v), 10) + ")"
}
