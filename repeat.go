package stortest

import "time"

type repeatConfig struct {
	max    int
	budget time.Duration
	opts   []BaselineOption
}
