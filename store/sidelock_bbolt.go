//go:build bboltlockonly

package store

import (
	"os"
	"time"
)

// With the bboltlockonly tag, writers queue on bbolt's own lock alone. It
// exists so that deploy/bench/bench-hit.sh can measure, side by side, what the
// side lock buys in tail latency; it is never the shipped build.

func lockSide(string, bool, time.Duration, *LockWaits) (*os.File, error) { return nil, nil }

func unlockSide(*os.File) {}
