package baselines

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// DefaultKeep is how many sessions a baseline grown with Grow keeps by
// default: enough for the spread between sessions to outweigh the
// assumed one, few enough that the baseline follows a device that drifts.
const DefaultKeep = 10

// ErrOtherDevice is matched by Grow's error when the baseline was
// recorded on another device (Fingerprint.DeviceMismatch).
var ErrOtherDevice = errors.New("baselines: recorded on another device")

// Grown says what Grow did.
type Grown struct {
	// Sessions are the sessions the grown baseline holds, oldest first.
	Sessions []string
	// Evicted are the sessions dropped to keep at most keep, oldest
	// first, and EvictedRuns how many runs they held.
	Evicted     []string
	EvictedRuns int
}

// Grow returns the baseline of old's sessions and cur's: the baseline of
// a job recorded in earlier sessions (old) with this session's run, or
// runs (cur, one session: FromResult, maybe with AddRun), added to it. At
// most keep sessions are kept: beyond that the oldest go first (the
// order of Sessions, which is the order they were added in), all of
// their runs with them. cur's session is never evicted. old and cur are
// not changed.
//
// The grown baseline's Runs are old's runs that stay, oldest first, then
// cur's. Its full data (histograms, seconds, slices, the fingerprint,
// the tolerances) is cur's, the newest session's: that is the device in
// its present state (its firmware and kernel now, what the next run
// meets), the data the distribution and per-second comparisons should
// judge against; the older sessions' figures stay in Runs, which is
// what the spread between sessions is measured from. Keeping the first
// session's data instead would compare every later run with a state the
// device may have left, and lose it to eviction besides.
//
// old must be a baseline of the same job (ErrOtherJob, as AddRun says)
// recorded on the same device (ErrOtherDevice, naming what differs): a
// firmware or kernel change of the device is not a mismatch.
func Grow(old, cur *Baseline, keep int) (*Baseline, Grown, error) {
	var g Grown
	if keep < 1 {
		return nil, g, fmt.Errorf("baselines: keep %d sessions: want at least 1", keep)
	}
	if old.Name != cur.Name {
		return nil, g, fmt.Errorf("%w: %q is not %q", ErrOtherJob, cur.Name, old.Name)
	}
	if ch := DiffJobs(old.Job, cur.Job); len(ch) > 0 {
		return nil, g, fmt.Errorf("%w: %s: the workload differs: %s", ErrOtherJob, old.Name, joinChanges(ch))
	}
	if ch := old.Fingerprint.DeviceMismatch(cur.Fingerprint); len(ch) > 0 {
		return nil, g, fmt.Errorf("%w: %s", ErrOtherDevice, joinChanges(ch))
	}
	oldRuns, curRuns := old.RunSummaries(), cur.RunSummaries()
	sessions := old.Sessions()
	for _, r := range curRuns {
		if !slices.Contains(sessions, r.Session) {
			sessions = append(sessions, r.Session)
		}
	}
	if over := len(sessions) - keep; over > 0 {
		for _, s := range sessions[:over] {
			if slices.ContainsFunc(curRuns, func(r RunSummary) bool { return r.Session == s }) {
				continue // never this session
			}
			g.Evicted = append(g.Evicted, s)
		}
	}
	runs := make([]RunSummary, 0, len(oldRuns)+len(curRuns))
	for _, r := range oldRuns {
		if slices.Contains(g.Evicted, r.Session) {
			g.EvictedRuns++
			continue
		}
		runs = append(runs, r)
	}
	runs = append(runs, curRuns...)
	n := *cur
	n.Schema = SchemaVersion
	n.Runs = nil
	if len(runs) > 1 {
		n.Runs = runs
	}
	g.Sessions = n.Sessions()
	return &n, g, nil
}

// joinChanges prints changes as "serial S1 -> S2, size ...".
func joinChanges(ch []Change) string {
	parts := make([]string, len(ch))
	for i, c := range ch {
		parts[i] = c.String()
	}
	return strings.Join(parts, ", ")
}
