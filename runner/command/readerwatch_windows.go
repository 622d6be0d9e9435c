package command

import (
	"os"
	"syscall"
)

// ErrReaderGone is the Err of the stream error that stops an attempt whose
// stdout retry holds when the reader of retry's own stdout went away. On
// Windows the reader is not watched (no poll(2) of a pipe's write end):
// a write to the closed pipe finds it, as any write does.
var ErrReaderGone error = readerGone{}

type readerGone struct{}

func (readerGone) Error() string {
	return "broken pipe (its reader went away while retry held the attempt's stdout)"
}
func (readerGone) Unwrap() error { return syscall.EPIPE }

// readerWatch watches nothing on Windows; its methods take a nil one.
type readerWatch struct{}

func watchReader(*os.File) *readerWatch  { return nil }
func (w *readerWatch) stop()             {}
func heldStdoutLost(*readerWatch, *pump) {}
