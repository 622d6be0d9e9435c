package durable

// Store is where a sequence lives while one invocation holds it: a File, or
// a key of a Redis server shared by many machines (runner/durable/redis).
// Whoever opened it holds its lock until Close: no other invocation, on
// this machine or another, makes an attempt of the sequence meanwhile.
type Store interface {
	// Read returns the sequence, nil when there is none, or a
	// *CorruptError.
	Read() (*State, error)
	// Write replaces the sequence with s, atomically and durably.
	Write(s *State) error
	// Remove removes the sequence: it succeeded.
	Remove() error
	// Exists reports whether there was a sequence when the store was
	// opened, or one was written since.
	Exists() bool
	// Close releases the lock.
	Close() error
}
