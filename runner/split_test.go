package runner

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"ls", []string{"ls"}},
		{"  ls   -l\t/tmp  ", []string{"ls", "-l", "/tmp"}},
		{`scripted "my dir"`, []string{"scripted", "my dir"}},
		{`echo 'a "b" $c'`, []string{"echo", `a "b" $c`}},
		{`echo "it's"`, []string{"echo", "it's"}},
		{`echo '' ""`, []string{"echo", "", ""}},
		{`echo a''b "c"d`, []string{"echo", "ab", "cd"}},
		{`grep "a\.b" f`, []string{"grep", `a\.b`, "f"}},     // \ before . stays inside "…"
		{`echo "\$ \" \\ \x"`, []string{"echo", `$ " \ \x`}}, // only $ " \ ` are escaped
		{`echo a\ b \t\n`, []string{"echo", "a b", "tn"}},    // unquoted \ keeps the next character
		{"echo a\\\nb", []string{"echo", "ab"}},              // line continuation
		{`echo \;`, []string{"echo", ";"}},                   // escaped operators are words
		{`echo ';' "&&" '|' "<>" '$(x)' '\x60'`, []string{"echo", ";", "&&", "|", "<>", "$(x)", `\x60`}},
		{`echo $ a$ "$" $/ 100$`, []string{"echo", "$", "a$", "$", "$/", "100$"}},
		{`echo a#b`, []string{"echo", "a#b"}},
		{`echo *.txt ~ [x] ?`, []string{"echo", "*.txt", "~", "[x]", "?"}}, // no globbing, no ~
		{`env A=1 cmd`, []string{"env", "A=1", "cmd"}},
		{`'A=1' cmd`, []string{"A=1", "cmd"}},
		{`curl -H "Authorization: Bearer x" https://h/p?q=1`, []string{"curl", "-H", "Authorization: Bearer x", "https://h/p?q=1"}},
		{`trailing\`, []string{`trailing\`}},
		{"echo 'multi\nline'", []string{"echo", "multi\nline"}},
		{`echo "a` + "\t" + `b"`, []string{"echo", "a\tb"}},
	}
	for _, tt := range tests {
		got, err := SplitCommand(tt.in)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestSplitCommandRefuses(t *testing.T) {
	tests := []struct {
		in   string
		what string // in the error
	}{
		{"a && b", `"&&"`},
		{"a || b", `"||"`},
		{"a | b", `"|"`},
		{"a; b", `";"`},
		{"a & ", `"&"`},
		{"a > f", `">"`},
		{"a 2>&1", `">"`},
		{"a < f", `"<"`},
		{"a >> f", `">>"`},
		{"(a)", `"("`},
		{"a\nb", "newline"},
		{"echo `id`", "command substitution"},
		{"echo $(id)", "command substitution"},
		{`echo "$(id)"`, "command substitution"},
		{"echo \"`id`\"", "command substitution"},
		{"echo $HOME", "$HOME"},
		{`echo "$HOME"`, "$HOME"},
		{"echo ${HOME}", "${…}"},
		{"echo $1", "$1"},
		{"echo $?", "$?"},
		{"echo $$", "$$"},
		{"echo $'x'", "ANSI-C"},
		{"echo # comment", "comment"},
		{"A=1 cmd", "A=1"},
	}
	for _, tt := range tests {
		got, err := SplitCommand(tt.in)
		if err == nil {
			t.Errorf("SplitCommand(%q) = %q, want an error", tt.in, got)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, tt.what) || !strings.HasSuffix(msg, "use --shell to run it with /bin/sh") {
			t.Errorf("SplitCommand(%q): %q, want it to name %s and hint at --shell", tt.in, msg, tt.what)
		}
	}
}

func TestSplitCommandErrors(t *testing.T) {
	for _, in := range []string{"", "   ", "\t", `echo 'open`, `echo "open`, `echo "a\"`} {
		if got, err := SplitCommand(in); err == nil {
			t.Errorf("SplitCommand(%q) = %q, want an error", in, got)
		}
	}
}
