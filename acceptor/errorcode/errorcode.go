package errorcode

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Limits on what an error code and its message may be. A longer code is not
// a code; a longer message is cut (logs and reports show it).
const (
	maxErrorCodeLen    = 128
	maxErrorMessageLen = 512
)

// The error lines of known CLIs, matched one line at a time.
var (
	// AWS CLI v1 and v2, legacy and enhanced formats:
	//   An error occurred (ThrottlingException) when calling the DescribeStacks operation (reached max retries: 4): Rate exceeded
	//   aws: [ERROR]: An error occurred (NoRegion): You must specify a region.
	//   fatal error: An error occurred (404) when calling the HeadObject operation: Key "k" does not exist
	awsErrorLine = lazyRegexp{expr: `An error occurred \(([^()\s]+)\)(?: when calling the \S+ operation)?(?: \(reached max retries: \d+\))?(?::\s*(.*))?`}

	// kubectl: Error from server (NotFound): pods "x" not found
	kubectlErrorLine = lazyRegexp{expr: `Error from server \(([A-Za-z][A-Za-z0-9]*)\)(?::\s*(.*))?`}
	// kubectl's other error lines that carry a cause (kubernetes/kubectl
	// pkg/cmd/util/helpers.go, checkErr and StandardErrorMessage): a 401
	// is not "Error from server (Unauthorized)" but
	//   error: You must be logged in to the server (MESSAGE)
	// a kind or resource the server does not serve (a CRD not installed):
	//   error: the server doesn't have a resource type "widgets"[ in group …]
	//   … no matches for kind "Widget" in version "example.com/v1"
	// and the connection errors of StandardErrorMessage:
	//   The connection to the server HOST:PORT was refused - did you specify the right host or port?
	//   Unable to connect to the server: CAUSE
	kubectlLoginLine      = lazyRegexp{expr: `^error: You must be logged in to the server \((.*)\)\s*$`}
	kubectlNoResourceLine = lazyRegexp{expr: `^error: (the server doesn't have a resource type .*?)\s*$`}
	kubectlNoKindLine     = lazyRegexp{expr: `(no matches for kind ".*" in version ".*?")`}
	kubectlRefusedLine    = lazyRegexp{expr: `^(The connection to the server \S+ was refused) - did you specify the right host or port\?\s*$`}
	kubectlConnectLine    = lazyRegexp{expr: `^Unable to connect to the server: (.*?)\s*$`}

	// gcloud: ERROR: (gcloud.compute.instances.describe) REST OF LINE
	gcloudErrorLine = lazyRegexp{expr: `^ERROR: \(gcloud(?:\.[\w-]+)*\)\s*(.*)$`}
	// The forms of REST OF LINE that carry a code.
	gcloudCanonical     = lazyRegexp{expr: `^([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{3,}):\s*(.*)$`} // NOT_FOUND: …
	gcloudHTTPError     = lazyRegexp{expr: `^HTTPError (\d{3}):?\s*(.*)$`}                        // HTTPError 404: …
	gcloudResponse      = lazyRegexp{expr: `^ResponseError: (?:code=(\d{3}), message=(.*)|status=\[(\d{3})\], code=\[[^\]]*\], message=\[(.*)\])$`}
	gcloudGRPC          = lazyRegexp{expr: `^Error Response: \[(\d{1,2})\]\s*(.*)$`} // Error Response: [13] …
	gcloudHTTPAccessing = lazyRegexp{expr: `HttpError accessing <[^>]*>: response: <\{.*'status': '(\d{3})'`}
	gcloudNotFound      = lazyRegexp{expr: `^\s*- (The resource '.*' was not found)\s*$`} // after "Could not fetch resource:"

	// Azure CLI: ERROR: (ResourceGroupNotFound) Resource group 'x' could not be found.
	azureErrorLine = lazyRegexp{expr: `^ERROR: \(([A-Za-z][\w.]*)\)\s*(.*)$`}

	// A top-level "Code:" line: AWS CLI --cli-error-format yaml, Azure CLI.
	codeLine    = lazyRegexp{expr: `^Code: *([^\s:]+)\s*$`}
	messageLine = lazyRegexp{expr: `^Message: *(.*)$`}

	// curl -f: curl: (22) The requested URL returned error: 503
	curlErrorLine = lazyRegexp{expr: `curl: \(22\) The requested URL returned error: (\d{3})\b\s*(.*)$`}

	// gh: "gh: Not Found (HTTP 404)" and "HTTP 404: Not Found (https://…)".
	ghSuffix = lazyRegexp{expr: `^gh: (.*) \(HTTP (\d{3})\)\s*$`}
	ghPrefix = lazyRegexp{expr: `^HTTP (\d{3}): (.*)$`}

	ansiEscape = lazyRegexp{expr: "\x1b\\[[0-9;?]*[ -/]*[@-~]"}
)

// lazyRegexp is a regexp compiled on its first use (get), so that retry's
// start-up does not pay for the patterns of CLIs an attempt never prints. A
// package-level lazyRegexp{expr: …} is static data: no code runs for it
// at start-up, where a sync.OnceValue closure would be built for each.
type lazyRegexp struct {
	once sync.Once
	expr string
	re   *regexp.Regexp
}

// get returns the compiled regexp. runner/redact has its twin: ten lines are not
// worth a package both would import, and neither imports the other.
func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}

// grpcCodes names the canonical gRPC status codes, which gcloud prints by
// number in "Error Response: [N] …".
var grpcCodes = [...]string{
	"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
	"ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
	"ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
	"UNAUTHENTICATED",
}

// ParseCommandError finds the error code in the stderr of a known CLI and the
// message that came with it. The last line that carries a code wins (a CLI
// that retried prints one error per try). It recognises:
//
//   - AWS CLI: "An error occurred (CODE) when calling the OP operation: MSG",
//     with or without "(reached max retries: N)", the v2 "aws: [ERROR]:"
//     prefix, "fatal error: " and the like; CODE may be a number ("(404)").
//   - AWS CLI --cli-error-format json: an object starting at the beginning of
//     a line with "Code" and "Message" (also {"Error": {"Code": …}} and the
//     JSON bodies ParseHTTPError knows); --cli-error-format yaml and the
//     Azure CLI: a "Code: CODE" line, with a "Message: MSG" line next to it.
//   - kubectl: "Error from server (CODE): MSG", CODE the Kubernetes
//     StatusReason (NotFound, Forbidden, ServiceUnavailable, …); and its
//     lines without one: "error: You must be logged in to the server (MSG)"
//     gives Unauthorized, "error: the server doesn't have a resource type
//     …" NoResourceMatch, "no matches for kind … in version …" NoKindMatch,
//     "The connection to the server HOST was refused - …"
//     ConnectionRefused, "Unable to connect to the server: CAUSE"
//     ConnectionReset (EOF, a reset), ConnectionTimeout (an I/O, TLS
//     handshake or client timeout) or else UnableToConnect.
//   - gcloud: "ERROR: (gcloud.…) CODE: MSG" for canonical codes (NOT_FOUND,
//     PERMISSION_DENIED, …); "HTTPError 404: MSG", "ResponseError: code=404"
//     and "HttpError accessing …'status': '404'" give the status as the
//     code; "Error Response: [5] MSG" gives the gRPC name (NOT_FOUND);
//     "Could not fetch resource:" followed by "- The resource '…' was not
//     found" gives NOT_FOUND.
//   - Azure CLI: "ERROR: (CODE) MSG".
//   - curl -f: "curl: (22) The requested URL returned error: 503" gives 503.
//   - gh: "gh: Not Found (HTTP 404)" and "HTTP 404: MSG" give 404.
//
// Terminal colour escapes are ignored. When nothing is recognised, both
// results are "". It never panics, whatever the input; the time it takes is
// linear in len(stderr).
func ParseCommandError(stderr []byte) (code, message string) {
	p := &stderrParser{text: lineText(stderr)}
	for l, ok := p.text.last(); ok; l, ok = p.text.prev(l) {
		if code, message, ok := p.parseLine(l); ok {
			return code, message
		}
	}
	return "", ""
}

// maxJSONTries bounds the lines starting with '{' that ParseCommandError
// decodes as JSON, so that stderr full of braces stays linear.
const maxJSONTries = 8

// stderrParser walks stderr from its last line up.
type stderrParser struct {
	text      lineText
	jsonTries int
}

// lineText is a text walked line by line, in either direction, without
// splitting it up front.
type lineText []byte

// lineSpan is one line of a lineText: [start, end), without its "\n".
type lineSpan struct{ start, end int }

// last returns the last line; a final "\n" does not start an empty line.
// ok is false for an empty text.
func (t lineText) last() (lineSpan, bool) {
	end := len(t)
	if end > 0 && t[end-1] == '\n' {
		end--
	}
	if len(t) == 0 {
		return lineSpan{}, false
	}
	return lineSpan{bytes.LastIndexByte(t[:end], '\n') + 1, end}, true
}

// prev returns the line before l.
func (t lineText) prev(l lineSpan) (lineSpan, bool) {
	if l.start == 0 {
		return lineSpan{}, false
	}
	end := l.start - 1
	return lineSpan{bytes.LastIndexByte(t[:end], '\n') + 1, end}, true
}

// next returns the line after l.
func (t lineText) next(l lineSpan) (lineSpan, bool) {
	if l.end+1 >= len(t) {
		return lineSpan{}, false
	}
	start := l.end + 1
	end := bytes.IndexByte(t[start:], '\n')
	if end < 0 {
		return lineSpan{start, len(t)}, true
	}
	return lineSpan{start, start + end}, true
}

// line returns the text of l without a final "\r" and terminal escapes.
func (t lineText) line(l lineSpan) []byte {
	b := t[l.start:l.end]
	b = bytes.TrimSuffix(b, []byte("\r"))
	if bytes.IndexByte(b, 0x1b) >= 0 {
		b = ansiEscape.get().ReplaceAll(b, nil)
	}
	return b
}

// codeFound cleans a code and its message; ok is false when the code is not one.
func codeFound(c, m string) (code, message string, ok bool) {
	c = cleanCode(c)
	return c, cleanMessage(m), c != ""
}

// parseLine tries every known format on line i (some look at the lines
// around it).
func (p *stderrParser) parseLine(l lineSpan) (code, message string, ok bool) {
	line := p.text.line(l)
	if len(line) == 0 {
		return "", "", false
	}
	if line[0] == '{' && p.jsonTries < maxJSONTries {
		p.jsonTries++
		if c, m := parseJSONError(p.text[l.start:]); c != "" {
			return c, m, true
		}
	}
	if bytes.Contains(line, []byte("An error occurred (")) {
		if m := awsErrorLine.get().FindSubmatch(line); m != nil {
			return codeFound(string(m[1]), string(m[2]))
		}
	}
	if bytes.Contains(line, []byte("Error from server (")) {
		if m := kubectlErrorLine.get().FindSubmatch(line); m != nil {
			return codeFound(string(m[1]), string(m[2]))
		}
	}
	if code, message, ok := parseKubectlLine(line); ok {
		return code, message, true
	}
	if bytes.HasPrefix(line, []byte("ERROR: (")) {
		if m := gcloudErrorLine.get().FindSubmatch(line); m != nil {
			return p.parseGcloud(l, m[1])
		}
		if m := azureErrorLine.get().FindSubmatch(line); m != nil {
			return codeFound(string(m[1]), string(m[2]))
		}
	}
	if bytes.Contains(line, []byte("HttpError accessing <")) {
		if m := gcloudHTTPAccessing.get().FindSubmatch(line); m != nil {
			return codeFound(string(m[1]), "")
		}
	}
	if bytes.HasPrefix(line, []byte("Code:")) {
		if m := codeLine.get().FindSubmatch(line); m != nil {
			return codeFound(string(m[1]), p.blockMessage(l))
		}
	}
	if bytes.Contains(line, []byte("curl: (22)")) {
		if m := curlErrorLine.get().FindSubmatch(line); m != nil {
			return codeFound(string(m[1]), string(m[2]))
		}
	}
	if bytes.HasPrefix(line, []byte("gh: ")) {
		if m := ghSuffix.get().FindSubmatch(line); m != nil {
			return codeFound(string(m[2]), string(m[1]))
		}
	}
	if bytes.HasPrefix(line, []byte("HTTP ")) {
		if m := ghPrefix.get().FindSubmatch(line); m != nil {
			return codeFound(string(m[1]), string(m[2]))
		}
	}
	return "", "", false
}

// The codes ParseCommandError gives kubectl's error lines that have no
// "(REASON)": named after the Kubernetes StatusReason kubectl turned into
// words (Unauthorized), after the apimachinery error it printed
// (meta.NoResourceMatchError, meta.NoKindMatchError), or after what
// became of the connection: refused, reset (EOF: kubectl has already
// retried it), timed out, or another cause (a name that does not resolve,
// a certificate, a credential plugin: UnableToConnect).
const (
	codeUnauthorized      = "Unauthorized"
	codeNoResourceMatch   = "NoResourceMatch"
	codeNoKindMatch       = "NoKindMatch"
	codeConnectionRefused = "ConnectionRefused"
	codeConnectionReset   = "ConnectionReset"
	codeConnectionTimeout = "ConnectionTimeout"
	codeUnableToConnect   = "UnableToConnect"
)

// connectCode classifies the cause of kubectl's "Unable to connect to the
// server: CAUSE".
func connectCode(cause string) string {
	switch {
	case cause == "EOF" || strings.HasSuffix(cause, ": EOF") ||
		strings.Contains(cause, "connection reset by peer") || strings.Contains(cause, "broken pipe"):
		return codeConnectionReset
	case strings.Contains(cause, "i/o timeout") || strings.Contains(cause, "TLS handshake timeout") ||
		strings.Contains(cause, "Client.Timeout exceeded") || strings.Contains(cause, "context deadline exceeded"):
		return codeConnectionTimeout
	}
	return codeUnableToConnect
}

// parseKubectlLine reads kubectl's error lines that carry a cause without
// "Error from server (REASON)".
func parseKubectlLine(line []byte) (code, message string, ok bool) {
	switch {
	case bytes.HasPrefix(line, []byte("error: You must be logged in")):
		if m := kubectlLoginLine.get().FindSubmatch(line); m != nil {
			return codeFound(codeUnauthorized, string(m[1]))
		}
	case bytes.HasPrefix(line, []byte("error: the server doesn't have a resource type ")):
		if m := kubectlNoResourceLine.get().FindSubmatch(line); m != nil {
			return codeFound(codeNoResourceMatch, string(m[1]))
		}
	case bytes.Contains(line, []byte("no matches for kind ")):
		if m := kubectlNoKindLine.get().FindSubmatch(line); m != nil {
			return codeFound(codeNoKindMatch, string(m[1]))
		}
	case bytes.HasPrefix(line, []byte("The connection to the server ")):
		if m := kubectlRefusedLine.get().FindSubmatch(line); m != nil {
			return codeFound(codeConnectionRefused, string(m[1]))
		}
	case bytes.HasPrefix(line, []byte("Unable to connect to the server: ")):
		if m := kubectlConnectLine.get().FindSubmatch(line); m != nil {
			return codeFound(connectCode(string(m[1])), string(m[1]))
		}
	}
	return "", "", false
}

// parseGcloud reads what follows "ERROR: (gcloud.…) ".
func (p *stderrParser) parseGcloud(l lineSpan, rest []byte) (code, message string, ok bool) {
	if m := gcloudCanonical.get().FindSubmatch(rest); m != nil {
		return codeFound(string(m[1]), string(m[2]))
	}
	if m := gcloudHTTPError.get().FindSubmatch(rest); m != nil {
		return codeFound(string(m[1]), string(m[2]))
	}
	if m := gcloudResponse.get().FindSubmatch(rest); m != nil {
		if len(m[1]) > 0 {
			return codeFound(string(m[1]), string(m[2]))
		}
		return codeFound(string(m[3]), string(m[4]))
	}
	if m := gcloudGRPC.get().FindSubmatch(rest); m != nil {
		n, _ := strconv.Atoi(string(m[1]))
		if n > 0 && n < len(grpcCodes) {
			return codeFound(grpcCodes[n], string(m[2]))
		}
		return "", "", false
	}
	if string(bytes.TrimSpace(rest)) == "Could not fetch resource:" {
		if next, ok := p.text.next(l); ok {
			if m := gcloudNotFound.get().FindSubmatch(p.text.line(next)); m != nil {
				return codeFound("NOT_FOUND", string(m[1]))
			}
		}
	}
	return "", "", false
}

// blockMessage finds a top-level "Message:" line in the block of non-blank
// lines around line i (AWS CLI yaml errors put Message before or after Code;
// the Azure CLI after it).
func (p *stderrParser) blockMessage(l lineSpan) string {
	const reach = 50
	for _, step := range []func(lineSpan) (lineSpan, bool){p.text.next, p.text.prev} {
		n := 0
		for j, ok := step(l); ok && n < reach; j, ok = step(j) {
			text := p.text.line(j)
			if len(bytes.TrimSpace(text)) == 0 {
				break
			}
			if m := messageLine.get().FindSubmatch(text); m != nil {
				return string(m[1])
			}
			n++
		}
	}
	return ""
}

// ParseErrorPattern applies the --error-pattern regexp re to stderr, one line
// at a time (like grep: "^" and "$" anchor at line ends, a pattern does not
// span lines), and returns the first capture group of the last match whose
// group is not empty; the whole match when re has no group. A final "\r" and
// terminal colour escapes are removed from each line first; the code is
// trimmed, and one longer than 128 bytes or holding control characters is
// not one. ok is false when no line matches, or re is nil.
func ParseErrorPattern(stderr []byte, re *regexp.Regexp) (code string, ok bool) {
	if re == nil {
		return "", false
	}
	group := 0
	if re.NumSubexp() > 0 {
		group = 1
	}
	text := lineText(stderr)
	for l, more := text.last(); more; l, more = text.prev(l) {
		line := text.line(l)
		ms := re.FindAllSubmatchIndex(line, -1)
		for k := len(ms) - 1; k >= 0; k-- {
			lo, hi := ms[k][2*group], ms[k][2*group+1]
			if lo >= 0 && hi > lo {
				if c := cleanCode(string(line[lo:hi])); c != "" {
					return c, true
				}
			}
		}
	}
	return "", false
}

// ParseHTTPError finds the error code and message of an HTTP error response.
//
// The code comes from the x-amzn-ErrorType header when there is one (AWS
// JSON and REST-JSON protocols; "aws.ns#Name:http://…" gives "Name"), else
// from the body:
//
//   - JSON: "__type" (the name after '#'), "code", "Code", "errorCode",
//     a Kubernetes Status's "reason", an "error" or "Error" object's "status"
//     when it is a string (Google: {"error": {"code": 404, "status":
//     "NOT_FOUND"}} gives NOT_FOUND), else its "code"/"Code"; an "error"
//     string (OAuth), or the first of "errors": [{"code": …}]. A number gives
//     its decimal form ("404").
//   - XML: the first <Code> element (S3 <Error><Code>SlowDown</Code>, EC2,
//     the AWS query protocol).
//
// The message comes from "message", "Message", "errorMessage",
// "error_description", "detail" or the same places as the code; in XML from
// the first <Message>. Blanks are collapsed and a long message is cut.
//
// A body that is neither, or garbage, gives "" results; it never panics. The
// caller bounds the body (about 1 MiB); the time is linear in its length.
func ParseHTTPError(header http.Header, body []byte) (code, message string) {
	if h := header.Get("X-Amzn-Errortype"); h != "" {
		code = cleanCode(sanitizeAWSType(h))
	}
	body = bytes.TrimPrefix(bytes.TrimSpace(body), []byte("\xef\xbb\xbf"))
	body = bytes.TrimSpace(body)
	var bc, bm string
	switch {
	case len(body) == 0:
	case body[0] == '{':
		bc, bm = parseJSONError(body)
	case body[0] == '<':
		bc, bm = parseXMLError(body)
	}
	if code == "" {
		code = bc
	}
	return code, bm
}

// sanitizeAWSType turns an AWS error type into its name: the part before the
// first ':' and after the last '#'.
func sanitizeAWSType(s string) string {
	s, _, _ = strings.Cut(s, ":")
	if i := strings.LastIndexByte(s, '#'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// parseJSONError decodes the first JSON value of b; when it is an object, it
// returns the error code and message found in it.
func parseJSONError(b []byte) (code, message string) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return "", ""
	}
	code, message = jsonErrorFields(obj)
	return cleanCode(code), cleanMessage(message)
}

func jsonErrorFields(obj map[string]any) (code, message string) {
	if t, ok := obj["__type"].(string); ok {
		code = sanitizeAWSType(t)
	}
	if kind, _ := obj["kind"].(string); kind == "Status" && code == "" { // Kubernetes
		code = jsonErrorScalar(obj["reason"])
	}
	for _, k := range []string{"code", "Code", "errorCode", "ErrorCode"} {
		if code == "" {
			code = jsonErrorScalar(obj[k])
		}
	}
	for _, k := range []string{"message", "Message", "errorMessage", "error_description", "detail"} {
		if message == "" {
			message = jsonErrorScalar(obj[k])
		}
	}
	for _, k := range []string{"error", "Error"} {
		switch e := obj[k].(type) {
		case map[string]any:
			if code == "" {
				if s, ok := e["status"].(string); ok {
					code = s
				}
			}
			for _, k := range []string{"code", "Code", "type", "Type", "status"} {
				if code == "" {
					code = jsonErrorScalar(e[k])
				}
			}
			for _, k := range []string{"message", "Message"} {
				if message == "" {
					message = jsonErrorScalar(e[k])
				}
			}
		case string:
			if code == "" {
				code = e
			}
		}
	}
	if errs, ok := obj["errors"].([]any); ok && len(errs) > 0 {
		if e, ok := errs[0].(map[string]any); ok {
			for _, k := range []string{"code", "Code"} {
				if code == "" {
					code = jsonErrorScalar(e[k])
				}
			}
			for _, k := range []string{"message", "Message"} {
				if message == "" {
					message = jsonErrorScalar(e[k])
				}
			}
		}
	}
	return code, message
}

// jsonErrorScalar returns a JSON string or number as text, and "" for anything
// else.
func jsonErrorScalar(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return ""
}

// parseXMLError returns the text of the first <Code> and <Message> elements
// of b, whatever their namespace, reading until both are found or the XML
// breaks.
func parseXMLError(b []byte) (code, message string) {
	dec := xml.NewDecoder(bytes.NewReader(b))
	dec.Strict = false
	dec.AutoClose = xml.HTMLAutoClose
	dec.Entity = xml.HTMLEntity
	var haveCode, haveMessage bool
	for !haveCode || !haveMessage {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		start, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		var text string
		switch {
		case start.Name.Local == "Code" && !haveCode:
			if dec.DecodeElement(&text, &start) != nil {
				return cleanCode(code), cleanMessage(message)
			}
			code, haveCode = text, true
		case start.Name.Local == "Message" && !haveMessage:
			if dec.DecodeElement(&text, &start) != nil {
				return cleanCode(code), cleanMessage(message)
			}
			message, haveMessage = text, true
		}
	}
	return cleanCode(code), cleanMessage(message)
}

// cleanCode trims s and returns it when it can be an error code: not empty,
// at most maxErrorCodeLen bytes of valid UTF-8, without control characters
// (tabs and line breaks included). Anything else gives "".
func cleanCode(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > maxErrorCodeLen || !utf8.ValidString(s) {
		return ""
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return ""
		}
	}
	return s
}

// cleanMessage collapses blanks and control characters in s to single
// spaces, replaces invalid UTF-8 and cuts it to maxErrorMessageLen bytes.
func cleanMessage(s string) string {
	if s == "" {
		return ""
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}), " ")
	return truncateUTF8(s, maxErrorMessageLen)
}

// truncateUTF8 cuts s to at most n bytes at a rune boundary, marking the cut
// with "…". The directive core has its twin (acceptor/matchers.go): a dozen
// lines are not worth a package both would import, and neither imports the
// other.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
