package stortest

import (
	"strconv"
	"time"
)

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// timeNow is the wall clock of reports; tests fix it.
var timeNow = time.Now
