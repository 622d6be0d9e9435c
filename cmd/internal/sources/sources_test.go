package sources

import (
	"slices"
	"testing"

	"github.com/spf13/pflag"

	"github.com/retry-dev/retry/acceptor"
)

// Every row's options register its Flag and then its Flags, exactly, so
// that help (which lists them), validation (which refuses a source's flags
// without it) and completion (its Files) read what the command line has;
// every kind of attempt has one row, and Of finds it.
func TestRowsAreWhatTheyRegister(t *testing.T) {
	kinds := map[acceptor.AttemptKind]bool{}
	for _, s := range Table {
		if kinds[s.Kind] {
			t.Errorf("%s: a second row for kind %v", s.Name, s.Kind)
		}
		kinds[s.Kind] = true
		if Of(s.Kind) != s {
			t.Errorf("Of(%v) is not the %s row", s.Kind, s.Name)
		}
		if s.Key == "" {
			t.Errorf("%s: no Key for --state's identity", s.Name)
		}
		if s.New == nil {
			if s.Flag != "" || len(s.Flags) > 0 {
				t.Errorf("%s: flags without options to register them", s.Name)
			}
			continue
		}
		fs := pflag.NewFlagSet(s.Name, pflag.ContinueOnError)
		fs.SortFlags = false
		s.New().Register(fs)
		var got []string
		fs.VisitAll(func(f *pflag.Flag) { got = append(got, f.Name) })
		if want := append([]string{s.Flag}, s.Flags...); !slices.Equal(got, want) {
			t.Errorf("%s registers %q, its row says %q", s.Name, got, want)
		}
		for _, f := range s.Files {
			if !slices.Contains(s.Flags, f) {
				t.Errorf("%s: file flag --%s is not one of its Flags", s.Name, f)
			}
		}
		if s.Metavar == "" || s.Noun == "" || s.Attempts == "" {
			t.Errorf("%s: Metavar, Noun and Attempts say it in messages", s.Name)
		}
	}
	for _, k := range []acceptor.AttemptKind{acceptor.CommandAttempt, acceptor.HTTPAttempt, acceptor.TCPAttempt} {
		if !kinds[k] {
			t.Errorf("no row for kind %v", k)
		}
	}
}

// How an attempt without error is said: a TCP connect accepted, an HTTP
// status with its error code; a command's is left to its exit status.
func TestSaid(t *testing.T) {
	for _, c := range []struct {
		a    acceptor.Attempt
		want string
	}{
		{acceptor.Attempt{Kind: acceptor.TCPAttempt}, "connection accepted"},
		{acceptor.Attempt{Kind: acceptor.HTTPAttempt, Status: 503, ErrorCode: "SlowDown"}, "HTTP 503 SlowDown"},
		{acceptor.Attempt{Kind: acceptor.HTTPAttempt, Status: 200}, "HTTP 200"},
		{acceptor.Attempt{Kind: acceptor.HTTPAttempt}, ""},
	} {
		if got := Of(c.a.Kind).Said(&c.a); got != c.want {
			t.Errorf("%v %d: said %q, want %q", c.a.Kind, c.a.Status, got, c.want)
		}
	}
	if Of(acceptor.CommandAttempt).Said != nil {
		t.Error("the command's attempts are said by their exit status, not by a row")
	}
}
