// Package lint holds the repository's structural checks, run as tests:
// the package layering of the README's package table (imports point down
// only, and nothing below package stortest imports "testing"), with
// Layers as its machine-readable form. TestReadmeTable keeps the two in
// step.
package lint
