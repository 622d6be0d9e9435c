package plan

import (
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// DefaultHelpWidth is the width help is wrapped at when it does not go to
// a terminal (a pipe, a file, a test's buffer), as gh and kubectl do.
const DefaultHelpWidth = 80

// HelpWidth returns the width to wrap help written to w at: the
// terminal's columns when w is a terminal, else DefaultHelpWidth. A
// terminal narrower than 40 columns gets 40: below that no flag line
// keeps a readable description column.
func HelpWidth(w io.Writer) int {
	if s, ok := w.(interface{ File() *os.File }); ok { // iostreams.Interruptible
		w = s.File()
	}
	f, ok := w.(*os.File)
	if !ok {
		return DefaultHelpWidth
	}
	cols, _, err := term.GetSize(int(f.Fd()))
	if err != nil || cols <= 0 {
		return DefaultHelpWidth
	}
	return max(cols, 40)
}

// WrapHelp wraps every line of text longer than width at spaces. A
// continuation is indented to where the line's description starts: the
// column after the first run of two or more spaces that follows the
// line's first word (a flag's "  -n, --attempts N   most attempts…", an
// exit status row "  124      the --max-time…"), else the line's own
// indentation. When that column leaves fewer than 20 columns, the
// continuation is indented 8 past the line's indentation instead. A word
// longer than the room left (a URL) stays whole on a line of its own.
func WrapHelp(text string, width int) string {
	var b strings.Builder
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		if len([]rune(line)) <= width {
			b.WriteString(line)
			continue
		}
		wrapLine(&b, line, width)
	}
	return b.String()
}

// wrapLine writes line, longer than width, as several lines.
func wrapLine(b *strings.Builder, line string, width int) {
	rs := []rune(line)
	lead := 0
	for lead < len(rs) && rs[lead] == ' ' {
		lead++
	}
	// The first line keeps its own spacing up to the description (the
	// flag column's padding); words are joined by single spaces after it.
	start := lead
	dc := descriptionColumn(line)
	if dc >= 0 {
		start = dc
	}
	hang := dc
	if hang < 0 || width-hang < 20 {
		hang = lead
		if lead > 0 && width-hang >= 28 {
			hang += 8
		}
	}
	col := start
	if dc >= 0 && hang != dc {
		// Too narrow for the description column: the description goes
		// under the flag, indented.
		b.WriteString(strings.TrimRight(string(rs[:dc]), " ") + "\n" + strings.Repeat(" ", hang))
		col = hang
	} else {
		b.WriteString(string(rs[:start]))
	}
	for i, w := range strings.Fields(string(rs[start:])) {
		n := len([]rune(w))
		switch {
		case i == 0:
		case col+1+n > width:
			b.WriteString("\n" + strings.Repeat(" ", hang))
			col = hang
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += n
	}
}

// descriptionColumn returns the column (in runes) where line's
// description starts: after the first run of two or more spaces that
// follows non-space text; -1 when there is none.
func descriptionColumn(line string) int {
	rs := []rune(line)
	i := 0
	for i < len(rs) && rs[i] == ' ' {
		i++
	}
	seenText := false
	for ; i < len(rs); i++ {
		if rs[i] != ' ' {
			seenText = true
			continue
		}
		if !seenText || i+1 >= len(rs) || rs[i+1] != ' ' {
			continue
		}
		j := i
		for j < len(rs) && rs[j] == ' ' {
			j++
		}
		if j < len(rs) {
			return j
		}
		return -1
	}
	return -1
}
