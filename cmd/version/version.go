// Package version is retry's version, the stamps of the release build, and
// the `retry version` subcommand that prints them.
package version

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/retry-dev/retry/cmd/internal/iostreams"
	"github.com/spf13/cobra"
)

// Build stamps, set by the release build (.goreleaser.yaml) with
// -ldflags "-X github.com/retry-dev/retry/cmd/version.version=… -X ….commit=… -X ….date=…".
var (
	version = ""
	commit  = ""
	date    = ""
)

// Version returns retry's version: the one set at build time, else the
// module version, else "dev".
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// buildInfo is what `retry version` reports.
type buildInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Date      string `json:"date"`
	GoVersion string `json:"go"`
	Platform  string `json:"platform"`
}

// currentBuild returns the stamps of this binary: the release build's, else
// what the Go toolchain recorded (module version, VCS revision and time),
// else "dev" and "unknown".
func currentBuild() buildInfo {
	b := buildInfo{Version: Version(), Commit: commit, Date: date, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && b.Commit == "":
				b.Commit = s.Value
			case s.Key == "vcs.time" && b.Date == "":
				b.Date = s.Value
			}
		}
	}
	if b.Commit == "" {
		b.Commit = "unknown"
	}
	if b.Date == "" {
		b.Date = "unknown"
	}
	return b
}

// NewCmd builds `retry version [--json]`.
func NewCmd(io *iostreams.IOStreams) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "version",
		Short: "Print retry's version, commit and build date",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			b := currentBuild()
			if asJSON {
				out, err := json.MarshalIndent(b, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(io.Out, "%s\n", out)
				return err
			}
			_, err := fmt.Fprintf(io.Out, "retry version %s (commit %s, built %s, %s, %s)\n", b.Version, b.Commit, b.Date, b.GoVersion, b.Platform)
			return err
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the version as a JSON object: version, commit, date, go, platform")
	return c
}
