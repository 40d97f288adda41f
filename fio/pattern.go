package fio

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// fio's pattern syntax (verify_pattern, buffer_pattern).

// maxPattern is fio's limit for verify_pattern, in bytes.
const MaxPattern = 512

// ParseVerifyPattern parses fio's verify_pattern syntax as far as stortest
// supports it: 0x-hexadecimal byte strings (in the order written; an odd
// digit count gets a leading 0) and "double-quoted" text, concatenated,
// at most 512 bytes. fio's decimal numbers and %o (the offset) are not
// supported. "" returns nil.
func ParseVerifyPattern(s string) ([]byte, error) {
	return parsePattern(s, false)
}

// parsePattern parses fio's pattern syntax; decimals allows decimal
// numbers (buffer_pattern; see ParseBufferPattern).
func parsePattern(s string, decimals bool) ([]byte, error) {
	var out []byte
	for rest := s; rest != ""; {
		switch {
		case len(rest) >= 2 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X'):
			i := 2
			for i < len(rest) && isHex(rest[i]) {
				i++
			}
			if i > 3 && i < len(rest) && (rest[i] == 'x' || rest[i] == 'X') {
				i-- // "0xff0x14": the 0 starts the next number
			}
			digits := rest[2:i]
			if digits == "" {
				return nil, fmt.Errorf("%q: 0x without hexadecimal digits", s)
			}
			if len(digits)%2 == 1 {
				digits = "0" + digits
			}
			b, err := hex.DecodeString(digits)
			if err != nil {
				return nil, fmt.Errorf("%q: %v", s, err)
			}
			out = append(out, b...)
			rest = rest[i:]
		case rest[0] == '"':
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return nil, fmt.Errorf("%q: unterminated quoted text", s)
			}
			out = append(out, rest[1:1+end]...)
			rest = rest[2+end:]
		case strings.HasPrefix(rest, "%o"):
			return nil, unsupported("verify_pattern %o (the offset)")
		case decimals && (rest[0] >= '0' && rest[0] <= '9' || rest[0] == '-' || rest[0] == '+'):
			var err error
			if out, rest, err = appendDecimal(out, rest); err != nil {
				return nil, err
			}
		case decimals && rest[0] == '\'':
			return nil, unsupported("buffer_pattern " + s + ": a pattern read from a file")
		case rest[0] >= '0' && rest[0] <= '9':
			return nil, unsupported("verify_pattern " + s + ": decimal numbers (write 0x hexadecimal)")
		default:
			return nil, fmt.Errorf("%q: unexpected %q (want 0x hex or \"text\")", s, rest[:1])
		}
		if len(out) > MaxPattern {
			return nil, fmt.Errorf("%q: longer than %d bytes", s, MaxPattern)
		}
	}
	if s != "" && len(out) == 0 {
		return nil, fmt.Errorf("%q: empty pattern", s)
	}
	return out, nil
}

// appendDecimal parses the decimal number at the start of s, as fio's
// patterns write it, onto out; it returns the rest of s.
func appendDecimal(out []byte, s string) ([]byte, string, error) {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	for i < len(s) && s[i] >= '0' && s[i] <= '9' && !(s[i] == '0' && i+1 < len(s) && (s[i+1] == 'x' || s[i+1] == 'X')) {
		i++
	}
	n, err := strconv.ParseInt(s[:i], 10, 32)
	if err != nil {
		return nil, "", fmt.Errorf("%q: not a 32-bit decimal number", s[:i])
	}
	if n == 0 {
		return append(out, 0), s[i:], nil
	}
	for v := uint32(n); v != 0; v >>= 8 {
		out = append(out, byte(v))
	}
	return out, s[i:], nil
}

// ParseBufferPattern parses fio's buffer_pattern syntax: 0x-hexadecimal
// byte strings, "double-quoted" text and decimal numbers (-2^31 to
// 2^31-1, written little endian in as few bytes as hold them, one zero
// byte for 0), concatenated in any order, at most 512 bytes. fio's
// 'filename' (a pattern read from a file) is not supported. "" returns
// nil.
func ParseBufferPattern(s string) ([]byte, error) {
	return parsePattern(s, true)
}
