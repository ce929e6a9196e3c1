package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/internal/readmeblock"
)

// readmeRepro returns the lines of the README's code block after the
// marker <!-- repro: name ... -->.
func readmeRepro(t *testing.T, name string) []string {
	t.Helper()
	raw, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	lines, err := readmeblock.Lines(string(raw), "<!-- repro: "+name)
	require.NoError(t, err)
	return lines
}

// shellWords splits a README command line into words as sh does
// (readmeblock.Words), failing the test on syntax it would not run.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	words, err := readmeblock.Words(line)
	require.NoError(t, err)
	return words
}

// curl performs a curl command line the way curl does for the options the
// README uses (-s, -H, -d: a POST whose Content-Type, unless given, is
// application/x-www-form-urlencoded), against base instead of
// localhost:8080.
func curl(t *testing.T, c *http.Client, base string, args []string) string {
	t.Helper()
	require.Equal(t, "curl", args[0])
	hdr := http.Header{}
	var body *string
	var target string
	for i := 1; i < len(args); i++ {
		switch a := args[i]; a {
		case "-s":
		case "-H":
			i++
			k, v, ok := strings.Cut(args[i], ":")
			require.True(t, ok, "header %q", args[i])
			hdr.Set(strings.TrimSpace(k), strings.TrimSpace(v))
		case "-d":
			i++
			b := args[i]
			body = &b
		default:
			require.False(t, strings.HasPrefix(a, "-"), "curl option %s is not emulated", a)
			target = a
		}
	}
	u, ok := strings.CutPrefix(target, "localhost:8080")
	require.True(t, ok, "the README talks to localhost:8080: %s", target)
	method, rd := http.MethodGet, io.Reader(nil)
	if body != nil {
		method, rd = http.MethodPost, strings.NewReader(*body)
		if hdr.Get("Content-Type") == "" {
			hdr.Set("Content-Type", "application/x-www-form-urlencoded")
		}
	}
	req, err := http.NewRequest(method, base+u, rd)
	require.NoError(t, err)
	req.Header = hdr
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

// TestReadmeReproNewTaskIDOnContinuation runs the README's one-line
// reproduction of new-task-id-on-continuation as written: serve with the
// flags given, each curl line, and each "# →" line's fragments (split at
// "…") found in order in the answer. The task ids in the README are the
// ones serve's default seed gives: when the seeded sequence changes, this
// test prints the new ones.
func TestReadmeReproNewTaskIDOnContinuation(t *testing.T) {
	lines := readmeRepro(t, "new-task-id-on-continuation")
	serveArgs := shellWords(t, lines[0])
	require.Equal(t, []string{"a2amock", "serve"}, serveArgs[:2])
	var out, errb strings.Builder
	base, stop := startCmd(t, func(ctx context.Context, ready chan<- string) int {
		return serve(ctx, append(serveArgs[2:], "--addr", "127.0.0.1:0", "--log-level", "error"), &out, &errb, ready)
	})
	defer func() { require.Equal(t, 0, stop()) }()
	c := &http.Client{Transport: &http.Transport{}}
	defer c.CloseIdleConnections()

	var answer string
	for _, line := range lines[1:] {
		if want, ok := strings.CutPrefix(line, "# → "); ok {
			rest := answer
			for _, frag := range strings.Split(want, "…") {
				i := strings.Index(rest, frag)
				if !assert.GreaterOrEqual(t, i, 0, "README line %q: %q not in the answer\n%s", line, frag, answer) {
					break
				}
				rest = rest[i+len(frag):]
			}
			continue
		}
		require.True(t, strings.HasPrefix(line, "curl "), "unexpected README line %q", line)
		answer = curl(t, c, base, shellWords(t, line))
	}
}
