package sinks

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"testing"

	"github.com/retry-dev/retry/internal/testdir"
	"github.com/retry-dev/retry/runner"
)

// recordSink is an end sink that records the ends it finished and fails
// with err.
type recordSink struct {
	name string
	err  error
	seen *[]string
}

func (s recordSink) Name() string { return s.name }

func (s recordSink) Finish(e End) error {
	*s.seen = append(*s.seen, s.name+":"+e.Command)
	return s.err
}

// EndSinks finishes every sink, in order, even after one failed, and
// returns the failures named.
func TestEndSinksFinishInOrder(t *testing.T) {
	var seen []string
	full := errors.New("no space left on device")
	s := EndSinks{recordSink{"ci", nil, &seen}, recordSink{"--log-file L", full, &seen}, recordSink{"--report R", nil, &seen}}
	failed := s.Finish(End{Command: "run", Outcome: &runner.Outcome{End: runner.EndSuccess}})
	if want := []string{"ci:run", "--log-file L:run", "--report R:run"}; !slices.Equal(seen, want) {
		t.Errorf("finished %q, want %q", seen, want)
	}
	if len(failed) != 1 || failed[0].Sink != "--log-file L" || failed[0].Err != full {
		t.Errorf("failed %+v, want the --log-file's error", failed)
	}
}

// A run that made no attempt has nothing to report: the report and the
// CI's files are not written.
func TestEndSinksWithoutAttempts(t *testing.T) {
	dir := testdir.New(t)
	var ci *CI // outside CI
	s := EndSinks{ci, ReportFile{Config: ReportConfig{Path: dir + "/report.json"}}}
	if failed := s.Finish(End{Command: "run"}); failed != nil {
		t.Errorf("failed %+v, want none", failed)
	}
	if _, err := os.Stat(dir + "/report.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a report of no attempt was written (%v)", err)
	}
}
