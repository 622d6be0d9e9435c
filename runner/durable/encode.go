package durable

import "encoding/json"

// Encode writes s as indented JSON (encoding/json) with a final newline,
// in the current format version, remaining_attempts computed and every
// time in UTC. The bytes are those every release has written, so that a
// state an earlier release wrote is read and rewritten unchanged
// (TestStateFilesOfEarlierReleases).
func Encode(s *State) ([]byte, error) {
	b, err := json.MarshalIndent(current(s), "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
