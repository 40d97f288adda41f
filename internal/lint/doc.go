// Package lint holds the repository's structural checks, run as tests:
// the package layering of DESIGN.md (imports point down only, and nothing
// below package stortest imports "testing").
package lint
