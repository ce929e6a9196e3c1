package server_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// The card answers with Cache-Control carrying max-age (v1.0 asks for it
// beside the ETag; max-age=0 with no-cache keeps revalidation, since
// behaviors change the card at run time) and Last-Modified, and honours
// If-Modified-Since when there is no If-None-Match.
func TestCardCacheHeaders(t *testing.T) {
	t.Parallel()
	start0 := time.Date(2026, 1, 2, 3, 4, 5, 500_000_000, time.UTC)
	clock := timeline.NewFakeClock(start0)
	h := start(t, server.Config{Seed: 8, StepDelay: -1, Clock: clock,
		Agents: []server.AgentConfig{{Name: "a", Card: testCard(wire.V10, false)}}})
	const card = "/.well-known/agent-card.json"
	status, hdr, _ := h.do(http.MethodGet, card, nil, nil)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "no-cache, max-age=0", hdr.Get("Cache-Control"))
	lm := hdr.Get("Last-Modified")
	assert.Equal(t, "Fri, 02 Jan 2026 03:04:05 GMT", lm)
	etag := hdr.Get("ETag")

	status, hdr, b := h.do(http.MethodGet, card, nil, map[string]string{"If-Modified-Since": lm})
	assert.Equal(t, http.StatusNotModified, status)
	assert.Empty(t, b)
	assert.Equal(t, etag, hdr.Get("ETag"))
	assert.Equal(t, lm, hdr.Get("Last-Modified"))
	assert.Contains(t, hdr.Get("Cache-Control"), "max-age=")
	status, _, _ = h.do(http.MethodGet, card, nil, map[string]string{"If-Modified-Since": "Fri, 02 Jan 2026 03:04:04 GMT"})
	assert.Equal(t, http.StatusOK, status, "modified after the client's copy")
	status, _, _ = h.do(http.MethodGet, card, nil, map[string]string{"If-Modified-Since": lm, "If-None-Match": `"stale"`})
	assert.Equal(t, http.StatusOK, status, "If-None-Match decides when both are sent")

	// A behavior changes the card ten seconds later: new ETag, new
	// Last-Modified, and the old date no longer validates.
	clock.Advance(10 * time.Second)
	st, _, raw := h.do(http.MethodPut, "/_a2amock/behaviors?agent=a", []byte(`{"behaviors":["card-underclaims:claims=streaming"]}`), nil)
	require.Equal(t, http.StatusOK, st, "%s", raw)
	status, hdr, _ = h.do(http.MethodGet, card, nil, map[string]string{"If-Modified-Since": lm})
	assert.Equal(t, http.StatusOK, status)
	assert.NotEqual(t, etag, hdr.Get("ETag"))
	assert.Equal(t, "Fri, 02 Jan 2026 03:04:15 GMT", hdr.Get("Last-Modified"))
	// Another change within the same second still moves Last-Modified.
	st, _, raw = h.do(http.MethodPut, "/_a2amock/behaviors?agent=a", []byte(`{"behaviors":[]}`), nil)
	require.Equal(t, http.StatusOK, st, "%s", raw)
	status, hdr, _ = h.do(http.MethodGet, card, nil, map[string]string{"If-Modified-Since": "Fri, 02 Jan 2026 03:04:15 GMT"})
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, etag, hdr.Get("ETag"), "the honest card again")
	assert.Equal(t, "Fri, 02 Jan 2026 03:04:16 GMT", hdr.Get("Last-Modified"))
}
