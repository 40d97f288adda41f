package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"stortest.dev/latency/histlog"
	"stortest.dev/report/page"
)

// histMergeHTML writes the page of `hist merge --format html`: the merge
// of all inputs, and each input merged alone on the same quanta.
func histMergeHTML(ctx context.Context, w io.Writer, inputs []histlog.Input, cfg histlog.Config) error {
	var labels []string
	for _, in := range inputs {
		labels = append(labels, in.Label)
	}
	title := fmt.Sprintf("stortest hist merge: %d logs", len(inputs))
	if len(inputs) <= 4 {
		title = "stortest hist merge: " + strings.Join(labels, ", ")
	}
	m, err := page.NewMerge(ctx, title, inputs, cfg)
	if err != nil {
		return err
	}
	return page.WriteMerge(w, m)
}
