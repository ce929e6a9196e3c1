package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/gateway"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// rpc posts one v1.0 JSON-RPC call and returns the decoded reply and its
// headers.
func rpc(t *testing.T, c *http.Client, u, method, params string) (map[string]any, http.Header) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":"r1","method":"` + method + `","params":` + params + `}`
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
	require.Nil(t, out["error"], string(b))
	return out, resp.Header
}

func getJSON(t *testing.T, c *http.Client, u string) map[string]any {
	t.Helper()
	resp, err := c.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	var out map[string]any
	require.NoError(t, json.Unmarshal(b, &out), string(b))
	return out
}

// urlsIn collects every string value of v that looks like an http URL.
func urlsIn(v any, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			urlsIn(e, out)
		}
	case []any:
		for _, e := range x {
			urlsIn(e, out)
		}
	case string:
		if strings.HasPrefix(x, "http://") {
			*out = append(*out, x)
		}
	}
}

func TestServeGateway(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	gwURL, stop := startCmd(t, func(ctx context.Context, ready chan<- string) int {
		return serve(ctx, []string{"--gateway", "--addr", "127.0.0.1:0", "--seed", "7", "--step-delay", "0", "--log-level", "error"}, &stdout, &stderr, ready)
	})
	tr := &http.Transport{}
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}

	// Every URL in the card sends the client back through the gateway.
	card := getJSON(t, c, gwURL+"/.well-known/agent-card.json")
	var urls []string
	urlsIn(card, &urls)
	require.NotEmpty(t, urls, "the card declares its interfaces")
	for _, u := range urls {
		assert.True(t, strings.HasPrefix(u, gwURL+"/"), "card URL %s does not point at the gateway %s", u, gwURL)
	}

	reply, hdr := rpc(t, c, gwURL+"/", "SendMessage", `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}`)
	task, _ := reply["result"].(map[string]any)["task"].(map[string]any)
	require.NotNil(t, task, "%v", reply)
	clientID, _ := task["id"].(string)
	require.NotEmpty(t, clientID)
	corr := hdr.Get(gateway.CorrelationHeader)
	require.NotEmpty(t, corr, "the reply carries a correlation id header")
	md, _ := task["metadata"].(map[string]any)
	assert.Equal(t, corr, md[gateway.CorrelationMetadataKey], "and the same id in the task's metadata")

	// The control API passes through unchanged: the journal shows the
	// mock's own task id, which the client never saw.
	journal := getJSON(t, c, gwURL+"/_a2amock/journal")
	var mockID string
	for _, e := range journal["entries"].([]any) {
		id, _ := e.(map[string]any)["taskId"].(string)
		assert.NotEqual(t, clientID, id, "the gateway's alias never reaches the mock")
		if id != "" && mockID == "" {
			mockID = id
		}
	}
	require.NotEmpty(t, mockID, "the journal records the task")
	assert.NotEqual(t, mockID, clientID)
	// The same seed gives the same aliases, so the client's id is exactly
	// the gateway's reply alias of the mock's id.
	ref, err := gateway.New(gateway.Config{Upstream: "http://127.0.0.1:1", Seed: 7})
	require.NoError(t, err)
	assert.Equal(t, ref.Alias(gateway.ChannelReply, mockID), clientID)
	assert.Equal(t, ref.CorrelationID(mockID), corr)

	// The alias works in requests: the gateway maps it back.
	got, hdr := rpc(t, c, gwURL+"/", "GetTask", `{"id":"`+clientID+`"}`)
	assert.Equal(t, clientID, got["result"].(map[string]any)["id"])
	assert.Equal(t, corr, hdr.Get(gateway.CorrelationHeader))

	tr.CloseIdleConnections()
	assert.Equal(t, 0, stop(), stderr.String())
	assert.Contains(t, stdout.String(), "behind the id-rewriting gateway at "+gwURL)
}

func TestServeGatewayFromScenario(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "gw.yaml")
	require.NoError(t, os.WriteFile(file, []byte("server:\n  gateway: true\n  stepDelay: 0s\nagents:\n  - name: a\n"), 0o600))
	for _, tc := range []struct {
		name    string
		args    []string
		gateway bool
	}{
		{"server.gateway in the file", nil, true},
		{"--gateway=false overrides the file", []string{"--gateway=false"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			u, stop := startCmd(t, func(ctx context.Context, ready chan<- string) int {
				args := append([]string{"--addr", "127.0.0.1:0", "--log-level", "error", "--scenario", file}, tc.args...)
				return serve(ctx, args, &stdout, &stderr, ready)
			})
			tr := &http.Transport{}
			c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
			reply, hdr := rpc(t, c, u+"/", "SendMessage", `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}`)
			tr.CloseIdleConnections()
			id, _ := reply["result"].(map[string]any)["task"].(map[string]any)["id"].(string)
			require.NotEmpty(t, id, "%v", reply)
			assert.Equal(t, tc.gateway, strings.HasPrefix(id, "gw-"), id)
			assert.Equal(t, tc.gateway, hdr.Get(gateway.CorrelationHeader) != "")
			assert.Equal(t, 0, stop(), stderr.String())
		})
	}
}

func TestGatewayFrontGuardsControlAPI(t *testing.T) {
	t.Parallel()
	srv, err := server.New(server.Config{StepDelay: -1, ControlFrontSecret: "k1"})
	require.NoError(t, err)
	require.NoError(t, srv.Start("127.0.0.1:0"))
	defer srv.Close()

	open, err := newGatewayFront(srv.URL(), 1, "", "k1")
	require.NoError(t, err)
	defer open.proxyTransport.CloseIdleConnections()
	srvTok, err := server.New(server.Config{StepDelay: -1, ControlToken: "s3cret", ControlFrontSecret: "k2"})
	require.NoError(t, err)
	require.NoError(t, srvTok.Start("127.0.0.1:0"))
	defer srvTok.Close()
	withToken, err := newGatewayFront(srvTok.URL(), 1, "s3cret", "k2")
	require.NoError(t, err)
	defer withToken.proxyTransport.CloseIdleConnections()

	do := func(f *gatewayFront, remote, auth string) int {
		r := httptest.NewRequest(http.MethodGet, "/_a2amock/journal", nil)
		r.RemoteAddr = remote
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		w := httptest.NewRecorder()
		f.ServeHTTP(w, r)
		return w.Code
	}
	// The mock sees the front's loopback connection, so the front applies
	// the loopback rule to the real client.
	assert.Equal(t, http.StatusOK, do(open, "127.0.0.1:5555", ""))
	assert.Equal(t, http.StatusForbidden, do(open, "10.1.2.3:5555", ""))
	// With a token the mock checks the forwarded Authorization header.
	assert.Equal(t, http.StatusUnauthorized, do(withToken, "10.1.2.3:5555", ""))
	assert.Equal(t, http.StatusOK, do(withToken, "10.1.2.3:5555", "Bearer s3cret"))

	// A proxy in front of the gateway, on its host, connects from loopback
	// and names the client it forwards for.
	r := httptest.NewRequest(http.MethodGet, "/_a2amock/journal", nil)
	r.RemoteAddr = "127.0.0.1:5555"
	r.Header.Set("X-Forwarded-For", "198.51.100.9")
	w := httptest.NewRecorder()
	open.ServeHTTP(w, r)
	assert.Equal(t, http.StatusForbidden, w.Code)
	var refusal struct {
		Error struct {
			Code            int
			Status, Message string
		}
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &refusal), w.Body.String())
	assert.Equal(t, http.StatusForbidden, refusal.Error.Code)
	assert.Equal(t, "PERMISSION_DENIED", refusal.Error.Status)
	assert.Contains(t, refusal.Error.Message, "forwarded for 198.51.100.9")
}

// Stopping serve --gateway while a stream is open through the gateway ends
// the stream and exits cleanly, without waiting out a shutdown timeout.
func TestServeGatewayShutdownWithOpenStream(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	u, stop := startCmd(t, func(ctx context.Context, ready chan<- string) int {
		return serve(ctx, []string{"--gateway", "--addr", "127.0.0.1:0", "--log-level", "error", "--behavior", "never-terminal"}, &stdout, &stderr, ready)
	})
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	body := `{"jsonrpc":"2.0","id":"s1","method":"SendStreamingMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`
	req, err := http.NewRequest(http.MethodPost, u+"/", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Contains(t, resp.Header.Get("Content-Type"), "text/event-stream")
	first := make([]byte, 4096)
	n, err := resp.Body.Read(first)
	require.NoError(t, err)
	assert.Contains(t, string(first[:n]), `"id":"gw-`, "the stream's task id is the gateway's alias")

	// Exit 0: a shutdown that waited on the open stream ran into its 5s
	// deadline and exited 1 (a 4s wall-time bound added nothing but a
	// chance to fail on a loaded machine).
	assert.Equal(t, 0, stop(), "shutdown waited on the open stream: %s", stderr.String())
	// The stream ends (cleanly or cut): ReadAll returns instead of hanging.
	_, _ = io.ReadAll(resp.Body)
}

// TestGatewayFrontRefusesControlByAlias reproduces the probe: a v0.1
// client names its task "_a2amock"; the gateway's alias of that task, used
// as a path segment, was rewritten back to "_a2amock", so /<alias>/journal
// and /<alias>/reset reached the control API from the front's loopback
// connection — from any address, without a token. The mock now answers
// only the control calls the front vouches for.
func TestGatewayFrontRefusesControlByAlias(t *testing.T) {
	t.Parallel()
	card := cards.Generate("agent", 1)
	card.Dialect = wire.V01
	srv, err := server.New(server.Config{StepDelay: -1, ControlFrontSecret: "k3", Agents: []server.AgentConfig{{Name: "agent", Card: card}}})
	require.NoError(t, err)
	require.NoError(t, srv.Start("127.0.0.1:0"))
	defer srv.Close()
	front, err := newGatewayFront(srv.URL(), 1, "", "k3")
	require.NoError(t, err)
	defer front.proxyTransport.CloseIdleConnections()

	call := func(method, path, body string, hdr map[string]string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.RemoteAddr = "198.51.100.9:40000"
		r.Header.Set("Content-Type", "application/json")
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		front.ServeHTTP(w, r)
		return w
	}
	send := call(http.MethodPost, "/", `{"jsonrpc":"2.0","id":1,"method":"tasks/send","params":{"id":"_a2amock","message":{"role":"user","parts":[{"type":"text","text":"hi"}]}}}`, nil)
	require.Equal(t, http.StatusOK, send.Code, send.Body.String())
	alias := front.gw.Alias(gateway.ChannelReply, "_a2amock")
	require.Contains(t, send.Body.String(), alias, "the reply carries the task's alias")

	for _, tc := range []struct{ method, path string }{
		{http.MethodGet, "/" + alias + "/journal"},
		{http.MethodPost, "/" + alias + "/reset"},
		{http.MethodDelete, "/" + alias + "/behaviors"},
	} {
		// Refused twice over: the gateway does not rewrite an alias into a
		// reserved path (404), and the mock would answer only what the
		// front vouches for (403; TestControlAPIFrontSecret).
		w := call(tc.method, tc.path, "", nil)
		assert.Contains(t, []int{http.StatusForbidden, http.StatusNotFound}, w.Code, "%s %s: %s", tc.method, tc.path, w.Body)
		// Nor does a client's own copy of the header help it.
		w = call(tc.method, tc.path, "", map[string]string{server.ControlFrontHeader: "guess"})
		assert.Contains(t, []int{http.StatusForbidden, http.StatusNotFound}, w.Code, "%s %s with a forged header: %s", tc.method, tc.path, w.Body)
	}
	// The mock itself refuses a control call that reaches it from loopback
	// (as the gateway's rewritten requests did) without the front's secret.
	r := httptest.NewRequest(http.MethodPost, srv.URL()+"/_a2amock/reset", nil)
	r.RemoteAddr = "127.0.0.1:40000"
	r.Header.Set(server.ControlFrontHeader, "guess")
	w := httptest.NewRecorder()
	srv.Handler().ServeHTTP(w, r)
	assert.Equal(t, http.StatusForbidden, w.Code, w.Body.String())
	assert.NotEmpty(t, srv.Journal().Entries(), "the journal was not reset")
	// The real control path is still refused to this remote client...
	assert.Equal(t, http.StatusForbidden, call(http.MethodGet, "/_a2amock/journal", "", nil).Code)
	// ...and open to a loopback one.
	r = httptest.NewRequest(http.MethodGet, "/_a2amock/journal", nil)
	r.RemoteAddr = "127.0.0.1:40000"
	w = httptest.NewRecorder()
	front.ServeHTTP(w, r)
	assert.Equal(t, http.StatusOK, w.Code, w.Body.String())
}

// TestServeGatewayRefusesGRPC: behind the gateway a card would declare a
// gRPC interface no client could reach, so the combination is refused.
func TestServeGatewayRefusesGRPC(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	code := serve(context.Background(), []string{"--gateway", "--grpc", "--addr", "127.0.0.1:0", "--log-level", "error"}, &stdout, &stderr, nil)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr.String(), "the gateway serves JSON-RPC and HTTP+JSON only")
}
