package plan

import "os"

// setBlocking does nothing on Windows: O_NONBLOCK does not apply to files
// there, and opening a named pipe never waits for its other end.
func setBlocking(*os.File) {}
