package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/record"
	"github.com/a2amock/a2amock/server"
)

// startCmd runs a long-running subcommand in the background and returns
// its URL and a function that stops it and returns its exit code.
func startCmd(t *testing.T, f func(ctx context.Context, ready chan<- string) int) (string, func() int) {
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan int, 1)
	go func() { done <- f(ctx, ready) }()
	select {
	case u := <-ready:
		return u, func() int { cancel(); return <-done }
	case code := <-done:
		cancel()
		t.Fatalf("command exited with %d before listening", code)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("command did not start within 10s")
	}
	return "", nil
}

// startUpstream starts an honest in-process agent (seed 3, no step delay)
// for record to proxy, closed when the test ends.
func startUpstream(t *testing.T) *server.Server {
	t.Helper()
	srv, err := server.New(server.Config{Seed: 3, StepDelay: -1})
	require.NoError(t, err)
	require.NoError(t, srv.Start("127.0.0.1:0"))
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// loadRecording loads the recording a2amock record wrote at path.
func loadRecording(t *testing.T, path string) *record.Recording {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rec, err := record.Load(f)
	require.NoError(t, err)
	return rec
}

func postRPC(t *testing.T, c *http.Client, u, method, id string) map[string]any {
	body := `{"jsonrpc":"2.0","id":"` + id + `","method":"` + method + `","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(b, &out), string(b))
	return out
}

func TestRecordThenReplayCommands(t *testing.T) {
	t.Parallel()
	srv := startUpstream(t)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	out := filepath.Join(t.TempDir(), "agent.yaml")

	var stdout, stderr bytes.Buffer
	proxyURL, stop := startCmd(t, func(ctx context.Context, ready chan<- string) int {
		return recordCmd(ctx, []string{"--upstream", srv.URL(), "--out", out}, &stdout, &stderr, ready)
	})
	resp, err := c.Get(proxyURL + "/.well-known/agent-card.json")
	require.NoError(t, err)
	card, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Contains(t, string(card), proxyURL, "the card sends the client back through the proxy")
	recorded := postRPC(t, c, proxyURL+"/", "SendMessage", "a")
	tr.CloseIdleConnections()
	require.Equal(t, 0, stop(), stderr.String())
	assert.Contains(t, stdout.String(), "wrote 2 exchange(s)")

	rec := loadRecording(t, out)
	require.Len(t, rec.Exchanges, 2)

	// FILE before its flags too, as the usage line and docs/ci.md write it.
	for _, args := range [][]string{{"--addr", "127.0.0.1:0", "--speed", "0", out}, {out, "--addr", "127.0.0.1:0", "--speed", "0", "--splice", "5:drop"},
		{"--replay", out, "--addr", "127.0.0.1:0", "--behavior", "stream-hang"}} {
		replayURL, stop := startCmd(t, func(ctx context.Context, ready chan<- string) int {
			return replayCmd(ctx, args, io.Discard, &stderr, ready)
		})
		replayed := postRPC(t, c, replayURL+"/", "SendMessage", "b")
		assert.Equal(t, "b", replayed["id"])
		replayed["id"] = "a"
		assert.Equal(t, recorded, replayed, "the replay answers what the agent answered")
		resp, err := c.Get(replayURL + "/_a2amock/behaviors")
		require.NoError(t, err)
		listed, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, slices.Contains(args, "stream-hang"), strings.Contains(string(listed), `"stream-hang"`), "--behavior: %s", listed)
		tr.CloseIdleConnections()
		require.Equal(t, 0, stop(), stderr.String())
	}
	assert.True(t, replayRequested([]string{"--addr", "x", "--replay=f.json"}))
	assert.False(t, replayRequested([]string{"--scenario", "f.yaml"}))
}

func TestRecordReplayFlagErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"record", "--out", "x.json"}, "--upstream and --out are required"},
		{[]string{"record", "--upstream", "ftp://x", "--out", "x.json"}, "use an http(s) URL"},
		{[]string{"record", "--upstream", "http://127.0.0.1:1", "--out", "/no/such/dir/x.json"}, "--out"},
		{[]string{"replay"}, "which recording?"},
		{[]string{"replay", "/no/such/file.json"}, "no such file"},
		{[]string{"replay", "--splice", "x:boom", "f.json"}, "--splice"},
		{[]string{"replay", "--behavior", "stream-drop-evnts", "f.json"}, "did you mean"},
		{[]string{"replay", "--speed", "-1", "f.json"}, "--speed"},
		{[]string{"serve", "--replay", "/no/such/file.json"}, "no such file"},
	}
	for _, tc := range cases {
		var out, errb bytes.Buffer
		code := run(context.Background(), tc.args, &out, &errb)
		assert.Equal(t, 2, code, "%v: %s", tc.args, errb.String())
		assert.Contains(t, errb.String(), tc.want, tc.args)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"version":9,"exchanges":[]}`), 0o600))
	var errb bytes.Buffer
	assert.Equal(t, 2, run(context.Background(), []string{"replay", bad}, io.Discard, &errb))
	assert.Contains(t, errb.String(), "a2amock replay: "+bad+":1:12: version: version 9")

	// A mistake in the second exchange: the line and column of the key,
	// and which exchange.
	require.NoError(t, os.WriteFile(bad, []byte("{\"version\":1,\"exchanges\":[\n{},\n {\"respone\":{}}]}"), 0o600))
	errb.Reset()
	assert.Equal(t, 2, run(context.Background(), []string{"replay", bad}, io.Discard, &errb))
	assert.Contains(t, errb.String(), "a2amock replay: "+bad+`:3:3: exchanges[1]: unknown field "respone"`)
}

// TestRecordPrintsNoCredentials: an upstream given with credentials in its
// user information or query is printed as the recording names it, redacted,
// by record and by the replay of a recording that kept them; what the
// commands print ends up in CI logs.
func TestRecordPrintsNoCredentials(t *testing.T) {
	t.Parallel()
	up := startUpstream(t)
	withCreds := strings.Replace(up.URL(), "http://", "http://bob:pw-secret@", 1) + "/?api_key=key-secret"
	out := filepath.Join(t.TempDir(), "rec.json")
	var stdout, stderr bytes.Buffer
	_, stop := startCmd(t, func(ctx context.Context, ready chan<- string) int {
		return recordCmd(ctx, []string{"--upstream", withCreds, "--out", out, "--keep-credentials"}, &stdout, &stderr, ready)
	})
	require.Equal(t, 0, stop(), stderr.String())
	var replayOut bytes.Buffer
	_, stop = startCmd(t, func(ctx context.Context, ready chan<- string) int {
		return replayCmd(ctx, []string{"--addr", "127.0.0.1:0", out}, &replayOut, &stderr, ready)
	})
	require.Equal(t, 0, stop(), stderr.String())
	assert.Equal(t, 2, recordCmd(context.Background(), []string{"--upstream", "ftp://bob:pw-secret@host/?api_key=key-secret", "--out", out}, &stdout, &stderr, nil))
	for name, printed := range map[string]string{"record": stdout.String(), "replay": replayOut.String(), "errors": stderr.String()} {
		assert.NotContains(t, printed, "pw-secret", name)
		assert.NotContains(t, printed, "key-secret", name)
	}
	assert.Contains(t, stdout.String(), "redacted", "the upstream is named, its credentials marked")
	assert.Contains(t, replayOut.String(), "recorded from http://redacted@")
}
