// Package perfgate gates stortest's own speed (make perf-gate); its
// tests are all it has. See gate_test.go.
package perfgate
