package plan

import (
	"os"

	"github.com/retry-dev/retry/cmd/internal/exit"
	"github.com/retry-dev/retry/cmd/internal/writepolicy"
)

// fileUse is a file the run writes: the flag that names it and its path.
type fileUse struct {
	flag, path string
	// sink: --report or --log-file (the write policy's); else a state
	// file (--state, the --scope's bucket).
	sink bool
}

// checkFiles refuses, before anything runs, a --report or --log-file
// that cannot mean what it says: an empty path (it would write nothing
// and exit 0), one file named by two of the files the run writes
// (--report, --log-file, --state, the --scope's bucket file: each would
// truncate or replace the other's content), or retry's stdin when it is a
// file or a pipe (a write would change the command's input). scopeFile is
// the bucket file of --scope in the state directory, "" for none.
func (o *Options) checkFiles(state *StateStore, scopeFile string) error {
	for _, f := range [...]struct{ name, path string }{{"report", o.Output.Report}, {"log-file", o.Output.LogFile}} {
		if o.Given(f.name) && f.path == "" {
			return exit.Usagef("%s: empty path; want a FILE to write (leave the flag out to write none)", o.flagName(f.name))
		}
	}
	var uses []fileUse
	if o.Output.Report != "" {
		uses = append(uses, fileUse{o.flagName("report"), o.Output.Report, true})
	}
	if o.Output.LogFile != "" {
		uses = append(uses, fileUse{o.flagName("log-file"), o.Output.LogFile, true})
	}
	if state != nil && state.Key == nil {
		uses = append(uses, fileUse{o.flagName("state"), state.Name, false})
	}
	if scopeFile != "" {
		uses = append(uses, fileUse{o.flagName("scope") + " " + o.Retry.Scope + "'s bucket", scopeFile, false})
	}
	ids := make([]writepolicy.ID, len(uses))
	known := make([]bool, len(uses))
	for i, u := range uses {
		// A path that cannot be identified is refused by its own check.
		if id, err := writepolicy.Identify(u.path); err == nil {
			ids[i], known[i] = id, true
		}
	}
	for i := range uses {
		for j := i + 1; j < len(uses); j++ {
			if !known[i] || !known[j] || !ids[i].Same(ids[j]) || (ids[i].Through && ids[j].Through) {
				continue // two writes through one device or pipe: each only adds
			}
			return exit.Usagef("%s %s and %s %s name one file: one would overwrite the other; give each its own file", uses[i].flag, uses[i].path, uses[j].flag, uses[j].path)
		}
	}
	in, ok := o.IO.In.(*os.File)
	if !ok {
		return nil
	}
	stdin, ok := writepolicy.FileID(in)
	if !ok || !stdin.Feeds() {
		return nil // a terminal, /dev/null: written to, never read back
	}
	for i, u := range uses {
		if u.sink && known[i] && ids[i].Same(stdin) {
			return exit.Usagef("%s: %s is retry's stdin, the command's input: writing it would change that input; give another file", u.flag, u.path)
		}
	}
	return nil
}
