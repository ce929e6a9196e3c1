package cardserve

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/wire"
)

// TestWriteRevalidates: the first fetch gets the card with its validators;
// a conditional fetch with either validator gets 304; a changed card at
// the same URL moves Last-Modified by at least a second; HEAD has no body.
func TestWriteRevalidates(t *testing.T) {
	t.Parallel()
	var v Versions
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	v.SetSince(t0)
	get := func(body string, hdr ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "/.well-known/agent-card.json", nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		w := httptest.NewRecorder()
		Write(w, r, []byte(body), &v, "http://127.0.0.1:1", t0)
		return w
	}
	first := get(`{"v":1}`)
	require.Equal(t, http.StatusOK, first.Code)
	assert.Equal(t, `{"v":1}`, first.Body.String())
	assert.Equal(t, CacheControl, first.Header().Get("Cache-Control"))
	etag, lm := first.Header().Get("ETag"), first.Header().Get("Last-Modified")
	assert.Equal(t, t0.Format(http.TimeFormat), lm)
	assert.Equal(t, http.StatusNotModified, get(`{"v":1}`, "If-None-Match", "W/"+etag).Code)
	assert.Equal(t, http.StatusNotModified, get(`{"v":1}`, "If-Modified-Since", lm).Code)
	assert.Equal(t, http.StatusOK, get(`{"v":1}`, "If-None-Match", `"other"`, "If-Modified-Since", lm).Code,
		"If-None-Match decides when both are sent")

	changed := get(`{"v":2}`)
	assert.NotEqual(t, etag, changed.Header().Get("ETag"))
	assert.Equal(t, t0.Add(time.Second).Format(http.TimeFormat), changed.Header().Get("Last-Modified"))

	r := httptest.NewRequest(http.MethodHead, "/.well-known/agent-card.json", nil)
	w := httptest.NewRecorder()
	Write(w, r, []byte(`{"v":2}`), &v, "http://127.0.0.1:1", t0)
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Empty(t, w.Body.String())
}

// TestRenderDeclaresTheServedInterfaces: a v1.0 card names JSON-RPC and
// HTTP+JSON at the origin the client used; an agent serving JSON-RPC only
// names that; a gRPC server adds host:port (below the root, with the
// agent's name as tenant).
func TestRenderDeclaresTheServedInterfaces(t *testing.T) {
	t.Parallel()
	c := cards.Generate("a", 1)
	all := func(wire.Binding) bool { return true }
	b, err := Render(c, wire.V10, "http://127.0.0.1:9", "/agents/a", Interfaces{Declares: all, RESTPath: "/rest"})
	require.NoError(t, err)
	assert.Contains(t, string(b), `"http://127.0.0.1:9/agents/a/"`)
	assert.Contains(t, string(b), `"http://127.0.0.1:9/agents/a/rest"`)

	b, err = Render(c, wire.V10, "http://127.0.0.1:9", "", Interfaces{Declares: func(b wire.Binding) bool { return b == wire.BindingJSONRPC }, RESTPath: "/rest", GRPC: true})
	require.NoError(t, err)
	assert.NotContains(t, string(b), "/rest")
	assert.Contains(t, string(b), `"127.0.0.1:9"`)
	assert.NotContains(t, string(b), `"tenant"`, "the root's gRPC interface names no tenant")

	b, err = Render(c, wire.V10, "http://127.0.0.1:9", "/agents/a", Interfaces{Declares: all, RESTPath: "/rest", GRPC: true, Tenant: "a"})
	require.NoError(t, err)
	assert.Contains(t, string(b), `{"url":"127.0.0.1:9","protocolBinding":"GRPC","protocolVersion":"1.0","tenant":"a"}`)
}

// TestSignerSignsWithTheJWKSKeys: signing is off unless asked for; a
// signed card carries a signature whose key id is in the agent's JWKS,
// with the expired key beside it; the keys depend on seed and name only.
func TestSignerSignsWithTheJWKSKeys(t *testing.T) {
	t.Parallel()
	s := &Signer{Seed: 7, Name: "a"}
	x := &behaviors.Exchange{}
	sg := s.Signing("http://127.0.0.1:1", "")
	assert.Equal(t, "http://127.0.0.1:1"+JWKSPath, sg.JKU)
	unsigned, err := s.Sign([]byte(`{"name":"a"}`), x, sg)
	require.NoError(t, err)
	assert.Equal(t, `{"name":"a"}`, string(unsigned))

	s.Always = true
	signed, err := s.Sign([]byte(`{"name":"a"}`), x, sg)
	require.NoError(t, err)
	assert.Contains(t, string(signed), `"signatures"`)

	jwks, err := s.JWKS()
	require.NoError(t, err)
	var set struct {
		Keys []struct {
			Kid string `json:"kid"`
			Exp *int64 `json:"exp"`
		} `json:"keys"`
	}
	require.NoError(t, json.Unmarshal(jwks, &set))
	require.Len(t, set.Keys, 2)
	assert.Equal(t, sg.Key.ID, set.Keys[0].Kid)
	require.NotNil(t, set.Keys[1].Exp)

	again, err := (&Signer{Seed: 7, Name: "a"}).JWKS()
	require.NoError(t, err)
	assert.Equal(t, string(jwks), string(again), "deterministic")
}

func TestServeJWKS(t *testing.T) {
	t.Parallel()
	s := &Signer{Seed: 1, Name: "a"}
	recorded := 0
	w := httptest.NewRecorder()
	require.NoError(t, ServeJWKS(w, httptest.NewRequest(http.MethodGet, JWKSPath, nil), s, func() { recorded++ }))
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "application/jwk-set+json", w.Header().Get("Content-Type"))
	assert.Contains(t, w.Body.String(), `"keys"`)
	w = httptest.NewRecorder()
	require.NoError(t, ServeJWKS(w, httptest.NewRequest(http.MethodPost, JWKSPath, nil), s, func() { recorded++ }))
	assert.Equal(t, http.StatusMethodNotAllowed, w.Code)
	assert.Equal(t, "GET, HEAD", w.Header().Get("Allow"))
	assert.Equal(t, 1, recorded, "a refused method is not journaled as a fetch")
}

// TestAnswerAppliesTheCardHooks: a behavior's card edit changes what is
// served, not the declared card.
func TestAnswerAppliesTheCardHooks(t *testing.T) {
	t.Parallel()
	declared := cards.Generate("a", 1)
	a := &Agent{Card: declared, Signer: Signer{Seed: 1, Name: "a"},
		Interfaces: Interfaces{Declares: func(wire.Binding) bool { return true }, RESTPath: "/rest"}}
	x := &behaviors.Exchange{}
	x.Hooks().Card = append(x.Hooks().Card, func(c *cards.Card) { c.Name = "renamed" })
	w := httptest.NewRecorder()
	require.NoError(t, a.Answer(w, httptest.NewRequest(http.MethodGet, "/.well-known/agent-card.json", nil), x, "", time.Unix(0, 0)))
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Contains(t, w.Body.String(), `"renamed"`)
	assert.NotEqual(t, "renamed", declared.Name)
	assert.NotEmpty(t, w.Header().Get("ETag"))
}
