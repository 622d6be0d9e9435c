package bucket

import (
	"errors"
	"time"
)

// ErrNoScope is wrapped by the error of a scope store (bucket/file,
// bucket/redis) that shows or resets a scope that has no state.
var ErrNoScope = errors.New("no such scope")

// ScopeInfo is what `retry scope show` prints of a scope.
type ScopeInfo struct {
	Name     string `json:"name"`
	Tokens   int    `json:"tokens"`
	Capacity int    `json:"capacity"`
	// Adaptive is the shared adaptive limiter, nil until a run of the
	// scope recorded a response in adaptive mode.
	Adaptive *AdaptiveInfo `json:"adaptive,omitempty"`
	// Updated is when a run last changed the scope.
	Updated time.Time `json:"updated,omitzero"`
}

// AdaptiveInfo is the state of a scope's adaptive limiter.
type AdaptiveInfo struct {
	// Enabled: a throttling response was seen, sends are paced.
	Enabled bool `json:"enabled"`
	// FillRate is the allowed send rate, per second.
	FillRate float64 `json:"fill_rate"`
	// MaxRate is the rate at the last throttle (CUBIC's W_max).
	MaxRate float64 `json:"max_rate"`
	// MeasuredRate is the smoothed rate of responses, per second.
	MeasuredRate float64 `json:"measured_rate"`
	// LastThrottle is when the last throttling response was recorded.
	LastThrottle time.Time `json:"last_throttle,omitzero"`
}
