package iostat

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// DefaultSampleInterval is the Sampler's period when none is given.
const DefaultSampleInterval = time.Second

// SamplerConfig chooses what a Sampler reads and how often.
type SamplerConfig struct {
	// Interval between samples; 0 means DefaultSampleInterval.
	Interval time.Duration
	// Source of the counters (FromDiskstats reads all devices in one
	// read and is the cheaper).
	Source Source
	// Devices to keep; empty keeps all.
	Devices []string
}

// Sampler snapshots block device counters around and during a run: one
// snapshot when started, one per interval from a goroutine, one when
// stopped. It keeps every snapshot.
type Sampler struct {
	fs     FS
	cfg    SamplerConfig
	cancel context.CancelFunc
	done   chan struct{}

	mu    sync.Mutex
	snaps []Snapshot
	err   error // first error of the sampling goroutine

	stopOnce sync.Once
	result   []Snapshot
	stopErr  error
}

// StartSampler takes the first snapshot and starts sampling. Sampling
// stops when ctx is done or Stop is called; Stop must be called in
// either case to release the goroutine and take the last snapshot.
func (f FS) StartSampler(ctx context.Context, cfg SamplerConfig) (*Sampler, error) {
	if cfg.Interval == 0 {
		cfg.Interval = DefaultSampleInterval
	}
	if cfg.Interval < 0 {
		return nil, fmt.Errorf("iostat: sampler interval %v: must be positive", cfg.Interval)
	}
	first, err := f.Snapshot(cfg.Source, cfg.Devices...)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &Sampler{fs: f, cfg: cfg, cancel: cancel, done: make(chan struct{}), snaps: []Snapshot{first}}
	go s.loop(ctx)
	return s, nil
}

func (s *Sampler) loop(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(s.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			snap, err := s.fs.Snapshot(s.cfg.Source, s.cfg.Devices...)
			s.mu.Lock()
			if err != nil {
				if s.err == nil {
					s.err = err
				}
			} else {
				s.snaps = append(s.snaps, snap)
			}
			s.mu.Unlock()
		}
	}
}

// Snapshots returns a copy of the snapshots taken so far.
func (s *Sampler) Snapshots() []Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Snapshot(nil), s.snaps...)
}

// Stop ends sampling, waits for the goroutine, takes the last snapshot
// and returns all of them in order with the first error met. Later
// calls return the same.
func (s *Sampler) Stop() ([]Snapshot, error) {
	s.stopOnce.Do(func() {
		s.cancel()
		<-s.done
		last, err := s.fs.Snapshot(s.cfg.Source, s.cfg.Devices...)
		s.mu.Lock()
		defer s.mu.Unlock()
		if err == nil {
			s.snaps = append(s.snaps, last)
		} else if s.err == nil {
			s.err = err
		}
		s.result, s.stopErr = append([]Snapshot(nil), s.snaps...), s.err
	})
	return s.result, s.stopErr
}

// Deltas returns the delta between each pair of consecutive snapshots.
func Deltas(snaps []Snapshot) []Delta {
	var out []Delta
	for i := 1; i < len(snaps); i++ {
		out = append(out, NewDelta(snaps[i-1], snaps[i]))
	}
	return out
}

// Total returns the delta from the first to the last snapshot.
func Total(snaps []Snapshot) (Delta, error) {
	if len(snaps) < 2 {
		return Delta{}, fmt.Errorf("iostat: %d snapshots: need two for a delta", len(snaps))
	}
	return NewDelta(snaps[0], snaps[len(snaps)-1]), nil
}
