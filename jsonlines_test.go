//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCommands["jsonlines"] = cmdJSONLines
}

// cmdJSONLines is `jsonlines FILE [RETRY ATTEMPT OUT]`: every line of
// FILE (stdout or stderr: the last command's) is a JSON object, as `jq -c
// .` would read them, or the script fails naming the first that is not.
// It writes to OUT the "text" of the lines whose "retry" is RETRY (stdout,
// body) and whose "attempt" is ATTEMPT, joined: the output a JSON log
// repeats, as `jq -j 'select(…) | .text'` would rebuild it.
func cmdJSONLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg || (len(args) != 1 && len(args) != 4) {
		ts.Fatalf("usage: jsonlines FILE [RETRY ATTEMPT OUT]")
	}
	data := ts.ReadFile(args[0])
	var text strings.Builder
	for i, line := range strings.SplitAfter(data, "\n") {
		if line == "" {
			continue
		}
		if !strings.HasSuffix(line, "\n") {
			ts.Fatalf("%s: line %d has no line break: %q", args[0], i+1, line)
		}
		var obj map[string]any
		dec := json.NewDecoder(bytes.NewReader([]byte(line)))
		if err := dec.Decode(&obj); err != nil || dec.More() {
			ts.Fatalf("%s: line %d is not a JSON object (%v): %q", args[0], i+1, err, line)
		}
		if n, _ := obj["attempt"].(float64); len(args) == 4 && obj["retry"] == args[1] && args[2] == strconv.FormatFloat(n, 'f', -1, 64) {
			s, _ := obj["text"].(string)
			text.WriteString(s)
		}
	}
	if len(args) == 4 {
		ts.Check(os.WriteFile(ts.MkAbs(args[3]), []byte(text.String()), 0o644))
	}
}
