package workload

// The size of stortest's verify header, which validation reads (fio's
// pattern syntax, verify_pattern and buffer_pattern, is package fio's).

// VerifyHeaderSize is the header's size in bytes; blocks must be at least
// this long.
const VerifyHeaderSize = 64
