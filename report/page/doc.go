// Package page writes stortest's pictures: one self-contained HTML file
// per run (RenderRun), per comparison with a baseline (RenderDiff) and per
// merge of histogram logs from many hosts (RenderMerge).
//
// A page holds everything it shows: inline SVG charts and their CSS, no
// script, and nothing fetched from anywhere (a font, a library, an
// image), so that it opens the same in a CI system's artifact viewer, in
// an air-gapped lab and from a mail attachment. It follows the reader's
// dark mode (prefers-color-scheme) and prints black on white.
//
// The charts are written by hand rather than with a plotting library.
// What they need is small (lines on linear or log axes, shaded spans,
// marks, a forest plot) and what matters is that the page stays small and
// exact: a run of an hour at one sample a second must render in well
// under a second into well under 2 MB. A line with more points than its
// chart has pixel columns keeps each column's first, lowest, highest and
// last point, so no spike is lost and the size is bounded by the width.
// gonum/plot draws good static SVG but brings a font and vector
// toolkit for text layout, draws every point (an hour of seconds is
// 3600 points per line, over a dozen lines a page) and cannot take CSS
// classes, which dark mode and printing need; go-echarts needs its
// JavaScript served, which an offline viewer lacks.
//
// Conventions, the same on every page: time in seconds (minutes past ten
// minutes) from the measured start, a ramp shaded before 0; latencies on
// log axes with their unit on every tick ("100µs", "2ms"), formatted as
// the summary and the JUnit report format them; read, write and trim in
// blue, vermillion and green of Okabe and Ito's colour-blind-safe palette
// throughout, percentiles told apart by dashes as well as colour.
package page
