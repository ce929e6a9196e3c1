package judge

import (
	"strings"
	"testing"
)

// TestStderrGist: a crash's reason quotes the line of stderr that says what
// went wrong, not a runtime's footer.
func TestStderrGist(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, stderr, want string }{
		{"node", "node:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\nError: Cannot find module '/tmp/x.js'\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)\n    at node:internal/main/run_main_module:28:49 {\n  code: 'MODULE_NOT_FOUND',\n  requireStack: []\n}\n\nNode.js v20.20.2\n",
			`"Error: Cannot find module '/tmp/x.js'"`},
		{"node TypeError", "file:///c.mjs:3\nTypeError [ERR_INVALID_URL]: Invalid URL\n    at new URL (node:internal/url:775:36)\n\nNode.js v20.20.2", `"TypeError [ERR_INVALID_URL]: Invalid URL"`},
		{"python", "Traceback (most recent call last):\n  File \"c.py\", line 3, in <module>\n    raise ValueError(\"no card\")\nValueError: no card\n", `"ValueError: no card"`},
		{"python, an exception not named Error", "Traceback (most recent call last):\n  File \"c.py\", line 3, in <module>\nhttpx.ReadTimeout: timed out\n", `"httpx.ReadTimeout: timed out"`},
		{"go panic", "panic: runtime error: invalid memory address\n\ngoroutine 1 [running]:\nmain.main()\n\t/c/main.go:9 +0x1d\nexit status 2\n", `"panic: runtime error: invalid memory address"`},
		{"go log.Fatal under go run", "2026/12/05 02:40:00 dial tcp 127.0.0.1:1: connection refused\nexit status 1\n", `"2026/12/05 02:40:00 dial tcp 127.0.0.1:1: connection refused"`},
		{"java", "Exception in thread \"main\" java.net.ConnectException: refused\n\tat Main.main(Main.java:5)\n", `"Exception in thread \"main\" java.net.ConnectException: refused"`},
		{"plain last line", "starting\ngave up after 3 tries\n", `"gave up after 3 tries"`},
		{"empty", " \n", "(empty)"},
		{"only a footer", "exit status 1\n", `"exit status 1"`},
	} {
		if got := stderrGist(c.stderr); got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
	long := stderrGist(strings.Repeat("é", 300))
	if n := len([]rune(long)); n != 2+200+1 {
		t.Errorf("a long line is cut to 200 runes and an ellipsis, inside quotes: %d runes", n)
	}
}
