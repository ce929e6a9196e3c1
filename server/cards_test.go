package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/internal/schemacheck"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// wireCard holds the interface fields of every card dialect.
type wireCard struct {
	Name                string
	URL                 string
	PreferredTransport  string
	ProtocolVersion     string
	SupportedInterfaces []struct {
		URL             string
		ProtocolBinding string
		ProtocolVersion string
	}
	AdditionalInterfaces []struct{ URL, Transport string }
	Capabilities         map[string]any
}

// fetchCard GETs a card, checks it against the dialect's schema and
// returns it.
func fetchCard(t *testing.T, h *harness, d wire.Dialect, path string) wireCard {
	t.Helper()
	status, hdr, b := h.do(http.MethodGet, path, nil, nil)
	require.Equal(t, http.StatusOK, status, "%s: %s", path, b)
	assert.Contains(t, hdr.Get("Content-Type"), "application/json")
	assert.NotEmpty(t, hdr.Get("ETag"))
	schemacheck.Require(t, d, "AgentCard", b)
	var c wireCard
	require.NoError(t, json.Unmarshal(b, &c))
	return c
}

// sendTo posts a send of dialect d to an absolute URL taken from a card.
func sendTo(t *testing.T, h *harness, d wire.Dialect, rawURL string, rest bool) wireTask {
	t.Helper()
	require.True(t, strings.HasPrefix(rawURL, h.url), "%s is one of the server's URLs (%s)", rawURL, h.url)
	path := strings.TrimPrefix(rawURL, h.url)
	cl := newClient(t, h, dialectCase{d: d, card: d, rest: rest})
	if rest {
		body, _ := json.Marshal(cl.sendParams(sendOpts{}))
		status, _, b := h.post(path+"/message:send", body, v1)
		require.Equal(t, http.StatusOK, status, "%s", b)
		schemacheck.Require(t, wire.V10, "SendMessageResponse", b)
		return cl.task(wire.OpSend, b)
	}
	if d == wire.V02 {
		d = wire.V03
	}
	r, raw := h.rpc(path, methodNames[d][wire.OpSend], cl.sendParams(sendOpts{}), cl.hdr())
	requireValidRPC(t, cl.c.d, wire.OpSend, raw)
	require.Nil(t, r.Error, "%s", raw)
	return cl.task(wire.OpSend, r.Result)
}

func TestCardsPerDialect(t *testing.T) {
	t.Parallel()
	for _, d := range []wire.Dialect{wire.V10, wire.V03, wire.V02, wire.V01} {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			h := start(t, server.Config{Seed: 51, StepDelay: -1, Agents: []server.AgentConfig{{Name: "agent", Card: testCard(d, false)}}})
			for _, path := range []string{"/.well-known/agent-card.json", "/.well-known/agent.json", "/agents/agent/.well-known/agent-card.json"} {
				c := fetchCard(t, h, d, path)
				assert.Equal(t, "Test Agent "+string(d), c.Name)
				base := h.url
				if strings.HasPrefix(path, "/agents/") {
					base += "/agents/agent"
				}
				switch d {
				case wire.V10:
					require.Len(t, c.SupportedInterfaces, 2, "a v1.0 card declares JSON-RPC and HTTP+JSON")
					byBinding := map[string]string{}
					for _, in := range c.SupportedInterfaces {
						byBinding[in.ProtocolBinding] = in.URL
						assert.Equal(t, "1.0", in.ProtocolVersion)
					}
					assert.Equal(t, base+"/", byBinding["JSONRPC"])
					assert.Equal(t, base+"/rest", byBinding["HTTP+JSON"])
					assert.Equal(t, wire.StateCompleted, sendTo(t, h, d, byBinding["JSONRPC"], false).State)
					assert.Equal(t, wire.StateCompleted, sendTo(t, h, d, byBinding["HTTP+JSON"], true).State)
				case wire.V03, wire.V02:
					assert.Equal(t, base+"/", c.URL)
					assert.Equal(t, "JSONRPC", c.PreferredTransport)
					assert.True(t, strings.HasPrefix(c.ProtocolVersion, string(d)), "protocolVersion %q", c.ProtocolVersion)
					assert.Equal(t, wire.StateCompleted, sendTo(t, h, d, c.URL, false).State)
				case wire.V01:
					assert.Equal(t, base+"/", c.URL)
					assert.Equal(t, wire.StateCompleted, sendTo(t, h, d, c.URL, false).State)
				}
			}
		})
	}
}

func TestCardsSeveralAgents(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 52, StepDelay: -1, Agents: []server.AgentConfig{
		{Name: "alpha"}, {Name: "beta", Card: testCard(wire.V03, false)}, {Name: "gamma"},
	}})
	assert.Equal(t, []string{"alpha", "beta", "gamma"}, h.srv.AgentNames())
	names := map[string]string{}
	for _, name := range []string{"alpha", "gamma"} {
		c := fetchCard(t, h, wire.V10, "/agents/"+name+"/.well-known/agent-card.json")
		names[name] = c.Name
		require.NotEmpty(t, c.SupportedInterfaces)
		for _, in := range c.SupportedInterfaces {
			assert.True(t, strings.HasPrefix(in.URL, h.url+"/agents/"+name+"/"), in.URL)
		}
		before := h.srv.Journal().Len()
		tk := sendTo(t, h, wire.V10, c.SupportedInterfaces[0].URL, false)
		assert.Equal(t, wire.StateCompleted, tk.State)
		for _, e := range h.srv.Journal().Entries()[before:] {
			assert.Equal(t, name, e.Agent, "the request reached the agent the card names")
		}
	}
	assert.NotEqual(t, names["alpha"], names["gamma"], "generated cards differ per agent")
	beta := fetchCard(t, h, wire.V03, "/agents/beta/.well-known/agent.json")
	assert.Equal(t, h.url+"/agents/beta/", beta.URL)
	assert.Equal(t, wire.StateCompleted, sendTo(t, h, wire.V03, beta.URL, false).State)

	root := fetchCard(t, h, wire.V10, "/.well-known/agent-card.json")
	assert.Equal(t, names["alpha"], root.Name, "the first agent is also at the root")

	// A task of one agent is unknown to another.
	tk := sendTo(t, h, wire.V10, h.url+"/agents/alpha/", false)
	cl := newClient(t, h, dialectCases[0])
	cl.base = "/agents/gamma"
	_, e := cl.get(tk.ID, nil)
	require.NotNil(t, e)
	assert.Equal(t, wire.CodeTaskNotFound, e.Code)
	cl.base = "/agents/alpha"
	_, e = cl.get(tk.ID, nil)
	require.Nil(t, e)

	status, _, b := h.do(http.MethodGet, "/agents/nobody/.well-known/agent-card.json", nil, nil)
	assert.Equal(t, http.StatusNotFound, status)
	requireRESTStatus(t, status, b)
}

func TestCardETag(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 53, StepDelay: -1})
	status, hdr, b := h.do(http.MethodGet, "/.well-known/agent-card.json", nil, nil)
	require.Equal(t, http.StatusOK, status)
	etag := hdr.Get("ETag")
	require.NotEmpty(t, etag)
	schemacheck.Require(t, wire.V10, "AgentCard", b)

	status, hdr, b = h.do(http.MethodGet, "/.well-known/agent-card.json", nil, map[string]string{"If-None-Match": etag})
	assert.Equal(t, http.StatusNotModified, status)
	assert.Empty(t, b)
	assert.Equal(t, etag, hdr.Get("ETag"))

	status, _, b = h.do(http.MethodGet, "/.well-known/agent-card.json", nil, map[string]string{"If-None-Match": `"stale"`})
	assert.Equal(t, http.StatusOK, status)
	assert.NotEmpty(t, b)

	// A list of tags, a weak tag and "*" match as RFC 9110 says.
	for _, match := range []string{`"stale", ` + etag, "W/" + etag, "*"} {
		status, _, b = h.do(http.MethodGet, "/.well-known/agent-card.json", nil, map[string]string{"If-None-Match": match})
		assert.Equal(t, http.StatusNotModified, status, "If-None-Match: %s", match)
		assert.Empty(t, b)
	}

	status, _, b = h.do(http.MethodHead, "/.well-known/agent-card.json", nil, nil)
	assert.Equal(t, http.StatusOK, status)
	assert.Empty(t, b)

	status, hdr, b = h.post("/.well-known/agent-card.json", []byte(`{}`), nil)
	assert.Equal(t, http.StatusMethodNotAllowed, status)
	assert.Contains(t, hdr.Get("Allow"), "GET")
	requireRESTStatus(t, status, b)
}
