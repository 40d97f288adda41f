package main

import "fmt"

// htmlDiffTitle heads the page of `baseline diff --format html`: what was
// compared, and how many baselines had no counterpart.
func htmlDiffTitle(old, cur string, onlyOld, onlyNew []string) string {
	t := fmt.Sprintf("baseline diff: %s against %s", cur, old)
	if n := len(onlyOld) + len(onlyNew); n > 0 {
		t += fmt.Sprintf(" (%d without a counterpart)", n)
	}
	return t
}
