// Package cmd holds retry's cobra commands, flag parsing, environment
// defaults and the mapping of outcomes to exit statuses. It is the only
// package that decides an exit status.
package cmd

// Main runs retry with os.Args and returns the exit status.
func Main() int { return 0 }
