package file

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/retry-dev/retry/bucket"
)

// ErrUntrusted is wrapped by the errors of a scope's state directory or
// file that retry refuses to use: another user's, not private and not
// fixable, or not a regular file.
var ErrUntrusted = errors.New("refusing untrusted scope state")

// info returns the bucket.ScopeInfo of st, its bucket refilled at now.
func (st *scopeState) info(name string, now time.Time) bucket.ScopeInfo {
	q := st.Bucket
	q.Refill(now)
	info := bucket.ScopeInfo{Name: name, Tokens: q.Available, Capacity: q.Capacity, Updated: st.Updated}
	if a := st.Adaptive; a != nil {
		info.Adaptive = &bucket.AdaptiveInfo{Enabled: a.Enabled, FillRate: a.FillRate, MaxRate: a.LastMaxRate, MeasuredRate: a.MeasuredRate}
		if a.Enabled {
			info.Adaptive.LastThrottle = a.LastThrottle
		}
	}
	return info
}

// ListScopes returns the names of the scopes with state in dir, sorted. A
// missing dir holds none.
func ListScopes(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".json"); ok && e.Type().IsRegular() && bucket.CheckName(name) == nil {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names, nil
}

// ReadScope returns the state of scope name in dir without creating it:
// an error wrapping bucket.ErrNoScope when it has none. The directory and the file
// are checked as OpenScope checks them.
func ReadScope(dir, name string, opts ScopeOptions) (bucket.ScopeInfo, error) {
	s, err := existingScope(dir, name, opts)
	if err != nil {
		return bucket.ScopeInfo{}, err
	}
	return s.Info()
}

// ResetScope removes the state of scope name in dir: the next run finds a
// full bucket and an adaptive limiter that paces nothing. It returns an
// error wrapping bucket.ErrNoScope when there is none.
func ResetScope(dir, name string) error {
	s, err := existingScope(dir, name, ScopeOptions{})
	if err != nil {
		return err
	}
	// Remove under the lock, so that a run holding it finishes its update
	// first; a run that opened the old file notices the removal (lock).
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.lock()
	if err != nil {
		return fmt.Errorf("scope %s: %w", s.path, err)
	}
	defer f.Close()
	return os.Remove(s.path)
}

func existingScope(dir, name string, opts ScopeOptions) (*Scope, error) {
	if err := bucket.CheckName(name); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, name+".json")
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w %q in %s", bucket.ErrNoScope, name, dir)
	}
	if err := checkStateDir(dir); err != nil {
		return nil, err
	}
	return &Scope{path: path, name: name, capacity: opts.capacity(), now: opts.clock()}, nil
}
