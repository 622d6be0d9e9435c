package iostreams

import (
	"io"
	"sync"
)

// SharedStderr is retry's stderr as the attempts and the log share it: it
// remembers whether the last byte written was a newline, so that a log line
// never continues a child's unfinished line ("partialretry: attempt 1/2…").
type SharedStderr struct {
	w io.Writer

	mu      sync.Mutex
	midLine bool // the last byte written was not a newline
}

// Child is the view the attempts write their stderr to.
func (s *SharedStderr) Child() io.Writer { return stderrView{s, false} }

// Log is the view retry's own lines go to: each write starts on a new line.
func (s *SharedStderr) Log() io.Writer { return stderrView{s, true} }

type stderrView struct {
	s   *SharedStderr
	log bool
}

func (v stderrView) Write(p []byte) (int, error) {
	s := v.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(p) == 0 {
		return 0, nil
	}
	if v.log && s.midLine {
		if _, err := s.w.Write([]byte{'\n'}); err != nil {
			return 0, err
		}
		s.midLine = false
	}
	n, err := s.w.Write(p)
	if n > 0 {
		s.midLine = p[n-1] != '\n'
	}
	return n, err
}

// NewSharedStderr returns w as the attempts and the log share it.
func NewSharedStderr(w io.Writer) *SharedStderr { return &SharedStderr{w: w} }
