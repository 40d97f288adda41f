package durable

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// VisibleFiles returns the files under root (any depth), in the order
// filepath.WalkDir visits them, whose names keep accepts. Hidden files
// and directories (a name starting with '.', root itself aside) are
// skipped: among them the temporary files of writes under way (Stage),
// which a reader of the directory must not take for whole files.
func VisibleFiles(root string, keep func(name string) bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != root {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() && keep(d.Name()) {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}
