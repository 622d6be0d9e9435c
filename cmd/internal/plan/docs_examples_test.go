package plan

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/retry-dev/retry/cmd/internal/iostreams"
	"github.com/spf13/pflag"
	"mvdan.cc/sh/v3/syntax"
)

// TestDocsExamplesBuild reads every `retry run` and `retry wait` of the
// shell and crontab blocks of README.md and docs/*.md, as a shell parses
// them (mvdan.cc/sh), and builds its plan: every flag, value, acceptor,
// waiter name and environment default an example shows must be accepted
// as written. What an example reads from outside (a file it names, a
// variable) is left alone: a missing file is the reader's, not an error
// of the example, and a parameter expansion stands for a word. Nothing
// runs.
func TestDocsExamplesBuild(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	pages = append(pages, filepath.Join(root, "README.md"))
	devnull, err := os.OpenFile(os.DevNull, os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	n := 0
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, block := range codeBlocks(string(text)) {
			f, err := syntax.NewParser().Parse(strings.NewReader(block), page)
			if err != nil {
				t.Errorf("%s: a shell cannot parse the block\n%s\n%v", page, block, err)
				continue
			}
			syntax.Walk(f, func(node syntax.Node) bool {
				call, ok := node.(*syntax.CallExpr)
				if !ok || len(call.Args) < 2 || call.Args[0].Lit() != "retry" {
					return true
				}
				env := map[string]string{}
				for _, a := range call.Assigns {
					env[a.Name.Value] = wordText(a.Value)
				}
				var args []string
				for _, w := range call.Args[1:] {
					args = append(args, wordText(w))
				}
				for len(args) > 0 && (args[0] == "-v" || args[0] == "--verbose") {
					args = args[1:]
				}
				if len(args) == 0 || (args[0] != "run" && args[0] != "wait") {
					return true
				}
				n++
				if msg := buildExample(args[0] == "wait", args[1:], env, devnull); msg != "" {
					t.Errorf("%s: retry %s: %s", page, strings.Join(args, " "), msg)
				}
				return true
			})
		}
	}
	if n < 50 {
		t.Errorf("only %d examples of retry run/wait found in README.md and docs/", n)
	}
}

// buildExample parses args as run's or wait's flags and builds the plan,
// returning what was refused ("" when nothing was).
func buildExample(wait bool, args []string, env map[string]string, devnull *os.File) string {
	var errOut bytes.Buffer
	c := newCommand(wait, &iostreams.IOStreams{In: devnull, Out: &bytes.Buffer{}, ErrOut: &errOut, Getenv: func(k string) string { return env[k] }})
	fs := pflag.NewFlagSet("example", pflag.ContinueOnError)
	fs.SetInterspersed(false)
	fs.SetOutput(&errOut)
	c.Register(fs)
	if err := fs.Parse(args); err != nil {
		return err.Error()
	}
	o := c.options()
	o.Args = fs.Args()
	if err := o.ApplyEnv(fs); err != nil {
		return err.Error()
	}
	if o.Waiter.List {
		return ""
	}
	p, err := Build(c)
	if err != nil {
		if readsAFileThatIsNotHere.MatchString(err.Error()) {
			return ""
		}
		return err.Error()
	}
	p.Close()
	return ""
}

// readsAFileThatIsNotHere matches the error of an example that names a
// file of the reader's (a waiter model, a request body, a CA), as Unix,
// Windows and Wine say it.
var readsAFileThatIsNotHere = regexp.MustCompile(`no such file or directory|The system cannot find the file specified|File not found`)

// codeBlocks returns the bodies of the ```sh, ```bash and ```crontab
// blocks of a Markdown text; a crontab line loses its five time fields.
func codeBlocks(text string) []string {
	var blocks []string
	var cur []string
	kind := ""
	for _, line := range strings.Split(text, "\n") {
		switch {
		case kind == "" && (line == "```sh" || line == "```bash" || line == "```crontab"):
			kind = strings.TrimPrefix(line, "```")
		case kind != "" && line == "```":
			blocks = append(blocks, strings.Join(cur, "\n")+"\n")
			cur, kind = nil, ""
		case kind == "crontab" && line != "" && !strings.HasPrefix(line, "#"):
			fields := strings.Fields(line)
			if len(fields) > 5 {
				line = strings.Join(fields[5:], " ")
			}
			cur = append(cur, line)
		case kind != "":
			cur = append(cur, line)
		}
	}
	return blocks
}

// exampleVariables are the values of the variables examples use where
// "X" would not do (a URL).
var exampleVariables = map[string]string{"ENDPOINT": "https://api.example.com/v1/items"}

// wordText returns a shell word as the command would get it, with each
// parameter expansion standing for its value in exampleVariables, else
// (and each command substitution) for the word "X".
func wordText(w *syntax.Word) string {
	var b strings.Builder
	var part func(p syntax.WordPart)
	part = func(p syntax.WordPart) {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescapeLit(p.Value))
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(strings.NewReplacer(`\\`, `\`, `\"`, `"`, `\$`, `$`, "\\`", "`").Replace(l.Value))
					continue
				}
				part(q)
			}
		case *syntax.ParamExp:
			if v, ok := exampleVariables[p.Param.Value]; ok {
				b.WriteString(v)
				return
			}
			b.WriteString("X")
		default:
			b.WriteString("X")
		}
	}
	for _, p := range w.Parts {
		part(p)
	}
	return b.String()
}

// unescapeLit removes the backslashes of an unquoted word.
func unescapeLit(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// TestReadmeForANewcomer holds README.md to what a user needs in the
// first minutes (at most 400 lines) and to the pages it links: every link
// into docs/ resolves, and every page of docs/ is linked from README.
func TestReadmeForANewcomer(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(readme, []byte("\n")); n > 400 {
		t.Errorf("README.md has %d lines: at most 400, the rest goes to a page of docs/", n)
	}
	linked := map[string]bool{}
	for _, m := range regexp.MustCompile(`\]\((docs/[^)#]+)`).FindAllSubmatch(readme, -1) {
		page := string(m[1])
		linked[page] = true
		if _, err := os.Stat(filepath.Join(root, page)); err != nil {
			t.Errorf("README.md links %s: %v", page, err)
		}
	}
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	for _, p := range pages {
		if rel := "docs/" + filepath.Base(p); !linked[rel] {
			t.Errorf("%s is not linked from README.md", rel)
		}
	}
}
