//go:build unix

package file

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const nobody = 65534

func TestScopeRefusesForeignState(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to plant a state owned by another user")
	}
	t.Run("directory", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "state")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(dir, nobody, nobody); err != nil {
			t.Fatal(err)
		}
		_, err := OpenScope(dir, "s", ScopeOptions{})
		if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "owned by uid 65534") {
			t.Errorf("OpenScope in nobody's dir = %v, want ErrUntrusted naming the owner", err)
		}
	})
	t.Run("file", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "s.json")
		if err := os.WriteFile(path, []byte(`{"version":1,"bucket":{"capacity":500,"available":0}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(path, nobody, nobody); err != nil {
			t.Fatal(err)
		}
		_, err := OpenScope(dir, "s", ScopeOptions{})
		if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), path) {
			t.Errorf("OpenScope of nobody's file = %v, want ErrUntrusted naming the file", err)
		}
	})
}

func TestScopeRefusesFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "s.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := OpenScope(dir, "s", ScopeOptions{})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "a FIFO") {
			t.Errorf("OpenScope on a FIFO = %v, want ErrUntrusted saying FIFO", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OpenScope hangs on a FIFO")
	}
}

func TestScopeRefusesNotADirectory(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenScope(file, "s", ScopeOptions{}); err == nil {
		t.Error("OpenScope with a file as the directory succeeded")
	}
}
