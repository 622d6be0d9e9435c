//go:build race

package main

// raceEnabled: the race detector multiplies memory use, so scripts that
// bound peak RSS skip under [race].
const raceEnabled = true
