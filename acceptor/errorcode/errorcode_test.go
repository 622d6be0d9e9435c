package errorcode

import (
	"bytes"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseCommandError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, stderr string
		code, msg    string
	}{
		// AWS CLI, legacy and v2 enhanced formats.
		{"aws throttling with retries",
			"\nAn error occurred (ThrottlingException) when calling the DescribeStacks operation (reached max retries: 4): Rate exceeded\n",
			"ThrottlingException", "Rate exceeded"},
		{"aws 404",
			"An error occurred (404) when calling the HeadObject operation: Not Found\n",
			"404", "Not Found"},
		{"aws 301 head-bucket",
			"\nAn error occurred (301) when calling the HeadBucket operation: Moved Permanently\n",
			"301", "Moved Permanently"},
		{"aws dotted code",
			"An error occurred (InvalidInstanceID.NotFound) when calling the DescribeInstances operation: The instance ID 'i-0123' does not exist\n",
			"InvalidInstanceID.NotFound", "The instance ID 'i-0123' does not exist"},
		{"aws v2 prefix without operation",
			`aws: [ERROR]: An error occurred (NoRegion): You must specify a region. You can also configure your region by running "aws configure".` + "\n",
			"NoRegion", `You must specify a region. You can also configure your region by running "aws configure".`},
		{"aws v2 additional details",
			"aws: [ERROR]: An error occurred (ResourceNotFoundException) when calling the GetFunction operation: Function not found: arn:aws:lambda:us-west-2:123456789012:function:f\n\nAdditional error details:\nType: User\n",
			"ResourceNotFoundException", "Function not found: arn:aws:lambda:us-west-2:123456789012:function:f"},
		{"aws s3 fatal error",
			`fatal error: An error occurred (404) when calling the HeadObject operation: Key "k" does not exist` + "\n",
			"404", `Key "k" does not exist`},
		{"aws s3 upload failed",
			"upload failed: ./f to s3://b/f An error occurred (AccessDenied) when calling the PutObject operation: Access Denied\n",
			"AccessDenied", "Access Denied"},
		{"aws CRLF",
			"An error occurred (SlowDown) when calling the PutObject operation: Please reduce your request rate.\r\n",
			"SlowDown", "Please reduce your request rate."},
		{"aws no message",
			"An error occurred (Unknown) when calling the X operation",
			"Unknown", ""},

		// AWS CLI --cli-error-format json and yaml.
		{"aws json",
			"{\n    \"Code\": \"NoSuchBucket\",\n    \"Message\": \"The specified bucket does not exist\",\n    \"BucketName\": \"amzn-s3-demo-bucket\"\n}\n",
			"NoSuchBucket", "The specified bucket does not exist"},
		{"aws json nested codes",
			`{
    "Message": "Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None]",
    "Code": "TransactionCanceledException",
    "CancellationReasons": [
        {
            "Code": "ConditionalCheckFailed",
            "Message": "The conditional request failed"
        },
        {
            "Code": "None"
        }
    ]
}
`,
			"TransactionCanceledException", "Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None]"},
		{"aws json one line after a warning",
			"warning: something\n{\"Code\": \"NoRegion\", \"Message\": \"You must specify a region.\"}\n",
			"NoRegion", "You must specify a region."},
		{"botocore Error dict",
			`{"Error": {"Code": "ValidationError", "Message": "Stack with id s does not exist"}, "ResponseMetadata": {"HTTPStatusCode": 400}}`,
			"ValidationError", "Stack with id s does not exist"},
		{"aws yaml",
			"Code: NoSuchBucket\nMessage: The specified bucket does not exist\nBucketName: amzn-s3-demo-bucket\n",
			"NoSuchBucket", "The specified bucket does not exist"},
		{"aws yaml message first, nested codes",
			"Message: Transaction cancelled\nCode: TransactionCanceledException\nCancellationReasons:\n- Code: ConditionalCheckFailed\n  Message: The conditional request failed\n- Code: None\n",
			"TransactionCanceledException", "Transaction cancelled"},

		// kubectl.
		{"kubectl not found",
			"Error from server (NotFound): pods \"x\" not found\n",
			"NotFound", `pods "x" not found`},
		{"kubectl forbidden",
			`Error from server (Forbidden): pods is forbidden: User "u" cannot list resource "pods" in API group "" in the namespace "default"` + "\n",
			"Forbidden", `pods is forbidden: User "u" cannot list resource "pods" in API group "" in the namespace "default"`},
		{"kubectl inside another message",
			"error: error when retrieving current configuration: Error from server (ServiceUnavailable): the server is currently unable to handle the request\n",
			"ServiceUnavailable", "the server is currently unable to handle the request"},
		{"kubectl colours",
			"\x1b[31mError from server (TooManyRequests)\x1b[0m: the server has received too many requests\n",
			"TooManyRequests", "the server has received too many requests"},
		// kubectl 1.32's stderr, recorded against an API server stub
		// (kubeapi_test.go) answering 401, 503, 429, an unknown resource
		// type, and a refused connection.
		{"kubectl unauthorized",
			"error: You must be logged in to the server (Unauthorized)\n",
			"Unauthorized", "Unauthorized"},
		{"kubectl unauthorized after discovery",
			"E1125 13:08:32.196318   12102 memcache.go:265] \"Unhandled Error\" err=\"couldn't get current server API group list: the server has asked for the client to provide credentials\"\n" +
				"error: You must be logged in to the server (the server has asked for the client to provide credentials)\n",
			"Unauthorized", "the server has asked for the client to provide credentials"},
		{"kubectl service unavailable",
			"Error from server (ServiceUnavailable): the server is currently unable to handle the request\n",
			"ServiceUnavailable", "the server is currently unable to handle the request"},
		{"kubectl throttled",
			"Error from server (TooManyRequests): the server has received too many requests and has asked us to try again later\n",
			"TooManyRequests", "the server has received too many requests and has asked us to try again later"},
		{"kubectl no resource type",
			"error: the server doesn't have a resource type \"widgets\"\n",
			"NoResourceMatch", `the server doesn't have a resource type "widgets"`},
		{"kubectl no resource type in group",
			"error: the server doesn't have a resource type \"widgets\" in group \"example.com\"\n",
			"NoResourceMatch", `the server doesn't have a resource type "widgets" in group "example.com"`},
		{"kubectl no kind",
			"error: resource mapping not found for name: \"w\" namespace: \"\" from \"w.yaml\": no matches for kind \"Widget\" in version \"example.com/v1\"\nensure CRDs are installed first\n",
			"NoKindMatch", `no matches for kind "Widget" in version "example.com/v1"`},
		{"kubectl connection refused",
			"E1125 13:08:32.196318   12102 memcache.go:265] \"Unhandled Error\" err=\"couldn't get current server API group list: Get \\\"http://127.0.0.1:1/api?timeout=32s\\\": dial tcp 127.0.0.1:1: connect: connection refused\"\n" +
				"The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?\n",
			"ConnectionRefused", "The connection to the server 127.0.0.1:1 was refused"},
		{"kubectl connection closed",
			"E1125 13:45:32.498288   14342 memcache.go:265] \"Unhandled Error\" err=\"couldn't get current server API group list: Get \\\"http://127.0.0.1:43193/api?timeout=32s\\\": EOF\"\n" +
				"Unable to connect to the server: EOF\n",
			"ConnectionReset", "EOF"},
		{"kubectl connection reset",
			"Unable to connect to the server: read tcp 10.0.0.5:51234->10.0.0.1:6443: read: connection reset by peer\n",
			"ConnectionReset", "read tcp 10.0.0.5:51234->10.0.0.1:6443: read: connection reset by peer"},
		{"kubectl dial timeout",
			"Unable to connect to the server: dial tcp 10.0.0.1:6443: i/o timeout\n",
			"ConnectionTimeout", "dial tcp 10.0.0.1:6443: i/o timeout"},
		{"kubectl TLS handshake timeout",
			"Unable to connect to the server: net/http: TLS handshake timeout\n",
			"ConnectionTimeout", "net/http: TLS handshake timeout"},
		{"kubectl certificate",
			"Unable to connect to the server: tls: failed to verify certificate: x509: certificate signed by unknown authority\n",
			"UnableToConnect", "tls: failed to verify certificate: x509: certificate signed by unknown authority"},

		// gcloud.
		{"gcloud NOT_FOUND",
			"ERROR: (gcloud.compute.instances.describe) NOT_FOUND: The resource 'x' was not found\n",
			"NOT_FOUND", "The resource 'x' was not found"},
		{"gcloud PERMISSION_DENIED",
			"ERROR: (gcloud.services.enable) PERMISSION_DENIED: Permission denied to enable service [x]\n",
			"PERMISSION_DENIED", "Permission denied to enable service [x]"},
		{"gcloud RESOURCE_EXHAUSTED",
			"ERROR: (gcloud.run.deploy) RESOURCE_EXHAUSTED: Quota exceeded for quota metric 'Write requests'\n",
			"RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Write requests'"},
		{"gcloud INTERNAL",
			"ERROR: (gcloud.sql.instances.patch) INTERNAL: An internal error has occurred.\n",
			"INTERNAL", "An internal error has occurred."},
		{"gcloud HTTPError",
			"ERROR: (gcloud.run.deploy) HTTPError 404: Resource 'x' of kind 'SERVICE' in region 'r' in project 'p' does not exist.\n",
			"404", "Resource 'x' of kind 'SERVICE' in region 'r' in project 'p' does not exist."},
		{"gcloud ResponseError code",
			"ERROR: (gcloud.container.clusters.describe) ResponseError: code=404, message=Not found: projects/p/zones/z/clusters/c.\n",
			"404", "Not found: projects/p/zones/z/clusters/c."},
		{"gcloud ResponseError status",
			"ERROR: (gcloud.functions.deploy) ResponseError: status=[403], code=[Ok], message=[Permission 'cloudfunctions.functions.get' denied]\n",
			"403", "Permission 'cloudfunctions.functions.get' denied"},
		{"gcloud Error Response grpc",
			"ERROR: (gcloud.app.deploy) Error Response: [5] Service not found.\n",
			"NOT_FOUND", "Service not found."},
		{"gcloud could not fetch resource",
			"ERROR: (gcloud.compute.instances.describe) Could not fetch resource:\n - The resource 'projects/p/zones/z/instances/x' was not found\n\n",
			"NOT_FOUND", "The resource 'projects/p/zones/z/instances/x' was not found"},
		{"gcloud HttpError accessing",
			"ERROR: gcloud crashed (HttpError): HttpError accessing <https://x.googleapis.com/v1/y>: response: <{'status': '503', 'content-length': '0'}>, content <>\n",
			"503", ""},

		// Azure CLI.
		{"az error line",
			"ERROR: (ResourceGroupNotFound) Resource group 'rg' could not be found.\nCode: ResourceGroupNotFound\nMessage: Resource group 'rg' could not be found.\n",
			"ResourceGroupNotFound", "Resource group 'rg' could not be found."},
		{"az error line alone",
			"ERROR: (AuthorizationFailed) The client 'x' does not have authorization\n",
			"AuthorizationFailed", "The client 'x' does not have authorization"},

		// curl and gh.
		{"curl -f",
			"curl: (22) The requested URL returned error: 503\n",
			"503", ""},
		{"curl -f with reason",
			"curl: (22) The requested URL returned error: 429 Too Many Requests\n",
			"429", "Too Many Requests"},
		{"gh api",
			"gh: Not Found (HTTP 404)\n",
			"404", "Not Found"},
		{"gh http prefix",
			"HTTP 403: API rate limit exceeded for user ID 1. (https://api.github.com/graphql)\n",
			"403", "API rate limit exceeded for user ID 1. (https://api.github.com/graphql)"},

		// The last error line wins.
		{"last of several",
			"An error occurred (Throttling) when calling the X operation: Rate exceeded\nretrying\nAn error occurred (ValidationError) when calling the X operation: Stack does not exist\n",
			"ValidationError", "Stack does not exist"},
		{"last across formats",
			"Error from server (NotFound): pods \"x\" not found\nAn error occurred (AccessDenied) when calling the X operation: no\nsome trailing noise\n",
			"AccessDenied", "no"},

		// Nothing to find.
		{"empty", "", "", ""},
		{"blank lines", "\n\n\r\n", "", ""},
		{"plain failure", "ls: cannot access 'x': No such file or directory\n", "", ""},
		{"gcloud without code", "ERROR: (gcloud.run.services.describe) Cannot find service [x]\n", "", ""},
		{"kubectl without code", "Error from server: etcdserver: request timed out\n", "", ""},
		{"aws without code", "Could not connect to the endpoint URL: \"https://x\"\n", "", ""},
		{"curl other error", "curl: (6) Could not resolve host: x\n", "", ""},
		{"empty parens", "An error occurred () when calling the X operation: y\n", "", ""},
		{"json without code", `{"level": "error", "msg": "boom"}`, "", ""},
		{"json garbage", "{not json\n{\"Code\": \n", "", ""},
		{"Code line with blanks", "Code: two words\n", "", ""},
		{"indented Code line", "  Code: Nested\n", "", ""},
		{"unicode noise", "héllo wörld ✓ — 失败\n", "", ""},
		{"invalid utf-8", "\xff\xfe\xfd\n", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, msg := ParseCommandError([]byte(tt.stderr))
			if code != tt.code || msg != tt.msg {
				t.Errorf("ParseCommandError(%q)\n got %q, %q\nwant %q, %q", tt.stderr, code, msg, tt.code, tt.msg)
			}
		})
	}
}

func TestParseCommandErrorUnicodeMessage(t *testing.T) {
	t.Parallel()
	code, msg := ParseCommandError([]byte("Error from server (Invalid): ConfigMap \"ü\" is invalid: データ\n"))
	if code != "Invalid" || msg != `ConfigMap "ü" is invalid: データ` {
		t.Errorf("got %q, %q", code, msg)
	}
}

func TestParseCommandErrorHuge(t *testing.T) {
	t.Parallel()
	// A 1 MiB tail: the error line at the very start is still found, under
	// lines that look like JSON and lines that are long.
	var b bytes.Buffer
	b.WriteString("An error occurred (RequestLimitExceeded) when calling the RunInstances operation: Request limit exceeded.\n")
	for b.Len() < 1<<20 {
		b.WriteString("{\"no\": \"code here\"}\n")
		b.WriteString(strings.Repeat("x", 4096) + "\n")
	}
	code, msg := ParseCommandError(b.Bytes())
	if code != "RequestLimitExceeded" || msg != "Request limit exceeded." {
		t.Errorf("got %q, %q", code, msg)
	}

	// One line of 1 MiB: the message is cut at a rune boundary.
	long := "An error occurred (ValidationError) when calling the X operation: " + strings.Repeat("é", 1<<19)
	code, msg = ParseCommandError([]byte(long))
	if code != "ValidationError" || len(msg) > maxErrorMessageLen || !utf8.ValidString(msg) || !strings.HasSuffix(msg, "…") {
		t.Errorf("got %q, message of %d bytes (valid UTF-8: %v)", code, len(msg), utf8.ValidString(msg))
	}

	// Only newlines.
	if code, msg := ParseCommandError(bytes.Repeat([]byte("\n"), 1<<20)); code != "" || msg != "" {
		t.Errorf("newlines: got %q, %q", code, msg)
	}
}

func TestParseCommandErrorLongCode(t *testing.T) {
	t.Parallel()
	in := "Error from server (" + strings.Repeat("A", maxErrorCodeLen+1) + "): x\n"
	if code, _ := ParseCommandError([]byte(in)); code != "" {
		t.Errorf("a %d-byte code was accepted", len(code))
	}
}

func TestParseErrorPattern(t *testing.T) {
	t.Parallel()
	stderr := []byte("starting\nerr=E1 retry\nerr=E2 fatal err=E3\nerr= nothing\ndone\n")
	tests := []struct {
		pattern string
		code    string
		ok      bool
	}{
		{`err=(\w+)`, "E3", true},          // last match of the last matching line
		{`err=(\w*)`, "E3", true},          // an empty group is skipped
		{`^err=(\w+)`, "E2", true},         // ^ anchors at each line
		{`E\d`, "E3", true},                // no group: the whole match
		{`(fatal)|(retry)`, "fatal", true}, // first group only
		{`(nothing)$`, "nothing", true},
		{`(x)?err= nothing`, "", false}, // the group did not take part
		{`missing (\w+)`, "", false},
		{`(?s)starting.(\w+)`, "", false}, // patterns do not span lines
	}
	for _, tt := range tests {
		code, ok := ParseErrorPattern(stderr, regexp.MustCompile(tt.pattern))
		if code != tt.code || ok != tt.ok {
			t.Errorf("ParseErrorPattern(%q) = %q, %v; want %q, %v", tt.pattern, code, ok, tt.code, tt.ok)
		}
	}
	if code, ok := ParseErrorPattern(stderr, nil); ok || code != "" {
		t.Errorf("nil regexp: got %q, %v", code, ok)
	}
	if code, ok := ParseErrorPattern(nil, regexp.MustCompile(`(.*)`)); ok || code != "" {
		t.Errorf("empty stderr: got %q, %v", code, ok)
	}
	if code, ok := ParseErrorPattern([]byte("code: ✓ok\r\n"), regexp.MustCompile(`code: (\S+)$`)); !ok || code != "✓ok" {
		t.Errorf("CRLF and unicode: got %q, %v", code, ok)
	}
}

func TestParseHTTPError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		header    http.Header
		body      string
		code, msg string
	}{
		{"amzn header wins, body message",
			http.Header{"X-Amzn-Errortype": {"ThrottlingException:http://internal.amazon.com/coral/com.amazon.coral.availability/"}},
			`{"__type": "com.amazon.coral.availability#Other", "message": "Rate exceeded"}`,
			"ThrottlingException", "Rate exceeded"},
		{"amzn header with namespace",
			http.Header{"X-Amzn-Errortype": {"aws.protocoltests.restjson#FooError:http://internal.amazon.com/coral/com.amazon/"}},
			``, "FooError", ""},
		{"amzn header, any case", http.Header{"X-Amzn-Errortype": {"ResourceNotFoundException"}}, `garbage`,
			"ResourceNotFoundException", ""},
		{"__type", nil,
			`{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"The level of configured provisioned throughput for the table was exceeded."}`,
			"ProvisionedThroughputExceededException", "The level of configured provisioned throughput for the table was exceeded."},
		{"__type with colon", nil, `{"__type":"ns#Name:http://x", "Message":"m"}`, "Name", "m"},
		{"code and Message", nil, `{"code": "ValidationException", "Message": "bad"}`, "ValidationException", "bad"},
		{"Code", nil, `{"Code": "X", "message": "y"}`, "X", "y"},
		{"numeric code", nil, `{"code": 404, "message": "not here"}`, "404", "not here"},
		{"errorCode", nil, `{"errorCode": "E_LIMIT", "errorMessage": "slow down"}`, "E_LIMIT", "slow down"},
		{"google status over code", nil,
			`{"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND"}}`,
			"NOT_FOUND", "Requested entity was not found."},
		{"google code only", nil, `{"error": {"code": 429, "message": "Quota exceeded"}}`, "429", "Quota exceeded"},
		{"azure", nil, `{"error": {"code": "ResourceNotFound", "message": "The Resource 'x' was not found."}}`,
			"ResourceNotFound", "The Resource 'x' was not found."},
		{"error numeric status", nil, `{"error": {"status": 401, "message": "The access token expired"}}`, "401", "The access token expired"},
		{"botocore-like Error", nil, `{"Error": {"Code": "ValidationError", "Message": "m"}}`, "ValidationError", "m"},
		{"oauth", nil, `{"error": "invalid_grant", "error_description": "Bad Request"}`, "invalid_grant", "Bad Request"},
		{"docker registry errors", nil,
			`{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown","detail":{"Tag":"x"}}]}`,
			"MANIFEST_UNKNOWN", "manifest unknown"},
		{"kubernetes Status", nil,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"x\" not found","reason":"NotFound","details":{"name":"x","kind":"pods"},"code":404}`,
			"NotFound", `pods "x" not found`},
		{"problem json", nil, `{"type":"about:blank","title":"Not Found","status":404,"detail":"no such thing"}`, "", "no such thing"},
		{"github message only", nil, `{"message":"Not Found","documentation_url":"https://docs.github.com"}`, "", "Not Found"},
		{"json with BOM and blanks", nil, "\xef\xbb\xbf  {\"Code\": \"X\"}\n", "X", ""},
		{"json trailing garbage", nil, `{"Code": "X"} trailing`, "X", ""},
		{"message whitespace collapsed", nil, "{\"code\": \"X\", \"message\": \"a\\n  b\\tc\"}", "X", "a b c"},

		{"s3 xml", nil,
			`<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><RequestId>R</RequestId><HostId>H</HostId></Error>`,
			"SlowDown", "Please reduce your request rate."},
		{"ec2 xml", nil,
			`<?xml version="1.0" encoding="UTF-8"?>
<Response><Errors><Error><Code>InvalidInstanceID.NotFound</Code><Message>The instance ID 'i-1' does not exist</Message></Error></Errors><RequestID>r</RequestID></Response>`,
			"InvalidInstanceID.NotFound", "The instance ID 'i-1' does not exist"},
		{"query xml with namespace", nil,
			`<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/">
  <Error>
    <Type>Sender</Type>
    <Code>Throttling</Code>
    <Message>Rate exceeded</Message>
  </Error>
  <RequestId>r</RequestId>
</ErrorResponse>`,
			"Throttling", "Rate exceeded"},
		{"xml entities", nil, `<Error><Code>A&amp;B</Code><Message>x &lt; y</Message></Error>`, "A&B", "x < y"},
		{"html page", nil, `<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>`, "", ""},
		{"broken xml", nil, `<Error><Code>Half`, "", ""},
		{"broken xml after code", nil, `<Error><Code>X</Code><Message>y`, "X", ""},

		{"empty", nil, ``, "", ""},
		{"plain text", nil, `Service Unavailable`, "", ""},
		{"json array", nil, `[{"code": "X"}]`, "", ""},
		{"json string", nil, `"X"`, "", ""},
		{"json null", nil, `null`, "", ""},
		{"code not scalar", nil, `{"code": {"x": 1}, "message": ["a"]}`, "", ""},
		{"code with newline", nil, "{\"code\": \"a\\nb\"}", "", ""},
		{"unicode", nil, `{"code": "Ошибка", "message": "не найдено ✗"}`, "Ошибка", "не найдено ✗"},
		{"invalid utf-8 message", nil, "{\"code\": \"X\", \"message\": \"a\xffb\"}", "X", "a\uFFFDb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, msg := ParseHTTPError(tt.header, []byte(tt.body))
			if code != tt.code || msg != tt.msg {
				t.Errorf("ParseHTTPError(%v, %q)\n got %q, %q\nwant %q, %q", tt.header, tt.body, code, msg, tt.code, tt.msg)
			}
		})
	}
}

func TestParseHTTPErrorHuge(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 1<<20)
	if code, msg := ParseHTTPError(nil, []byte("{\"a\":"+deep)); code != "" || msg != "" {
		t.Errorf("deep JSON: got %q, %q", code, msg)
	}
	deepXML := strings.Repeat("<a>", 1<<18)
	if code, msg := ParseHTTPError(nil, []byte(deepXML)); code != "" || msg != "" {
		t.Errorf("deep XML: got %q, %q", code, msg)
	}
	big := `{"padding": "` + strings.Repeat("x", 1<<20) + `", "code": "Late", "message": "` + strings.Repeat("m", 4096) + `"}`
	code, msg := ParseHTTPError(nil, []byte(big))
	if code != "Late" || len(msg) > maxErrorMessageLen {
		t.Errorf("big JSON: got %q and a %d-byte message", code, len(msg))
	}
}

func TestTruncateUTF8(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"abcdefghijk", 10, "abcdefg…"},
		{"ééééé", 8, "éé…"}, // 10 bytes; the cut at 5 would split an é
	}
	for _, tt := range tests {
		if got := truncateUTF8(tt.in, tt.n); got != tt.want {
			t.Errorf("truncateUTF8(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func FuzzParseCommandError(f *testing.F) {
	for _, s := range []string{
		"An error occurred (ThrottlingException) when calling the DescribeStacks operation (reached max retries: 4): Rate exceeded\n",
		"Error from server (NotFound): pods \"x\" not found",
		"ERROR: (gcloud.compute.instances.describe) Could not fetch resource:\n - The resource 'x' was not found\n",
		"ERROR: (gcloud.app.deploy) Error Response: [13] internal",
		"{\"Code\": \"X\", \"Message\": \"y\"}\n",
		"Message: m\nCode: C\n",
		"\x1b[31mcurl: (22) The requested URL returned error: 503\x1b[0m",
		"",
	} {
		f.Add([]byte(s))
	}
	re := regexp.MustCompile(`(?m)code=(\w+)`)
	f.Fuzz(func(t *testing.T, b []byte) {
		code, msg := ParseCommandError(b)
		if code != cleanCode(code) || len(msg) > maxErrorMessageLen || !utf8.ValidString(msg) {
			t.Errorf("ParseCommandError(%q) = %q, %q: not clean", b, code, msg)
		}
		ParseErrorPattern(b, re)
	})
}

func FuzzParseHTTPError(f *testing.F) {
	for _, s := range []string{
		`{"__type":"ns#X","message":"m"}`,
		`{"error": {"code": 404, "status": "NOT_FOUND", "message": "m"}}`,
		`{"errors":[{"code":"C"}]}`,
		`<Error><Code>SlowDown</Code><Message>m</Message></Error>`,
		`<html><body>x</body></html>`,
		"",
	} {
		f.Add([]byte(s), "")
	}
	f.Add([]byte(`{}`), "X:y#z")
	f.Fuzz(func(t *testing.T, body []byte, errType string) {
		h := http.Header{}
		h.Set("x-amzn-ErrorType", errType)
		code, msg := ParseHTTPError(h, body)
		if code != cleanCode(code) || len(msg) > maxErrorMessageLen || !utf8.ValidString(msg) {
			t.Errorf("ParseHTTPError(%q, %q) = %q, %q: not clean", errType, body, code, msg)
		}
	})
}

func BenchmarkParseCommandErrorNoMatch(b *testing.B) {
	var buf bytes.Buffer
	for buf.Len() < 1<<20 {
		buf.WriteString("INFO 2024-01-01T00:00:00Z starting worker 17 of 32: HTTP client ready, ERROR: none\n")
	}
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		ParseCommandError(buf.Bytes())
	}
}

func BenchmarkParseCommandErrorBraces(b *testing.B) {
	// Lines starting with '{' whose string never ends: each JSON try reads
	// to the end, and only maxJSONTries are made.
	buf := bytes.Repeat([]byte("{\"a\": \"unterminated\n"), 1<<20/20)
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		ParseCommandError(buf)
	}
}
