package plan

import (
	"github.com/retry-dev/retry/cmd/internal/exit"
	"github.com/spf13/pflag"
)

// ApplyEnv gives every flag the user did not set its environment default
// RETRY_<FLAG> (dashes as underscores), and records which flags were set.
func (o *Options) ApplyEnv(fs *pflag.FlagSet) error {
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		if err != nil {
			return
		}
		if f.Changed {
			o.set[f.Name] = true
			return
		}
		if f.Name == "help" {
			return
		}
		key := envKey(f.Name)
		v := o.IO.Env(key)
		if v == "" {
			return
		}
		if f.Name == "shell" {
			// A default must not turn every command string into a shell
			// script: --shell is given on the command line or not at all.
			err = exit.Usagef("%s: --shell cannot be switched on from the environment (a command string would silently run as a shell script); give --shell on the command line, or unset %s", key, key)
			return
		}
		if e := f.Value.Set(v); e != nil {
			err = exit.Usagef("%s (for --%s): %q: %v", key, f.Name, v, ValueProblem(f.Value, e))
			return
		}
		o.set[f.Name] = true
		o.fromEnv[f.Name] = true
	})
	return err
}

// Given reports whether the user set the flag, on the command line or in the
// environment.
func (o *Options) Given(name string) bool { return o.set[name] }
