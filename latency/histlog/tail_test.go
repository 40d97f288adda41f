package histlog

import (
	"bytes"
	"strings"
	"testing"
)

func TestLastRowTime(t *testing.T) {
	long := "1, 0, 4096" + strings.Repeat(", 12345678", 3000) + "\n" // 30 KB: past the first chunk
	tests := []struct {
		name string
		in   string
		want uint64
		ok   bool
	}{
		{"fio's last row", "1000, 0, 4096, 1\n2000, 1, 4096, 2\n", 2000, true},
		{"trailing blank lines and CRLF", "1000, 0, 4096, 1\r\n2000, 1, 4096, 2\r\n\r\n  \n", 2000, true},
		{"no final newline", "1000, 0, 4096, 1\n3000,1,4096,2", 3000, true},
		{"a long last row", long + strings.Replace(long, "1, 0", "77, 0", 1), 77, true},
		{"one row", "  42 , 0, 4096, 1", 42, true},
		{"a malformed last row", "1000, 0, 4096, 1\nx, 1, 4096, 2\n", 0, false},
		{"a time alone", "1000, 0, 4096, 1\n2000\n", 0, false},
		{"blank", "\n\n", 0, false},
		{"empty", "", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := lastRowTime(bytes.NewReader([]byte(tc.in)))
			if err != nil || got != tc.want || ok != tc.ok {
				t.Errorf("lastRowTime = %d, %v, %v; want %d, %v", got, ok, err, tc.want, tc.ok)
			}
		})
	}
}
