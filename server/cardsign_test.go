package server_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/cardsig"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

func TestSignCards(t *testing.T) {
	t.Parallel()
	ext := testCard(wire.V10, false)
	ext.Description = "extended"
	card := testCard(wire.V10, false)
	card.Capabilities.ExtendedAgentCard = true
	h := start(t, server.Config{Seed: 11, StepDelay: -1, SignCards: true,
		Agents: []server.AgentConfig{{Name: "a", Card: card, ExtendedCard: ext}, {Name: "b", Card: testCard(wire.V03, false)}}})

	status, _, set := h.do(http.MethodGet, "/agents/a/.well-known/jwks.json", nil, nil)
	require.Equal(t, http.StatusOK, status)
	var keys jose.JSONWebKeySet
	require.NoError(t, json.Unmarshal(set, &keys))
	require.Len(t, keys.Keys, 2)

	status, _, b := h.do(http.MethodGet, "/agents/a/.well-known/agent-card.json", nil, nil)
	require.Equal(t, http.StatusOK, status)
	require.NoError(t, cardsig.Verify(b, keys), "%s", b)
	_, err := cards.Parse(b)
	require.NoError(t, err)
	assert.NotContains(t, string(b), `"jku":`, "the jku is inside the protected header, not the card")

	r, raw := h.rpc("/agents/a/", "GetExtendedAgentCard", map[string]any{}, map[string]string{"A2A-Version": "1.0"})
	require.Nil(t, r.Error, "%s", raw)
	require.NoError(t, cardsig.Verify(r.Result, keys), "the extended card is signed too")

	// A v0.3 card is signed the same way, with agent b's own key.
	status, _, b = h.do(http.MethodGet, "/agents/b/.well-known/agent-card.json", nil, nil)
	require.Equal(t, http.StatusOK, status)
	_, _, setB := h.do(http.MethodGet, "/agents/b/.well-known/jwks.json", nil, nil)
	var keysB jose.JSONWebKeySet
	require.NoError(t, json.Unmarshal(setB, &keysB))
	require.NoError(t, cardsig.Verify(b, keysB))
	assert.Error(t, cardsig.Verify(b, keys), "agent a's keys do not verify agent b's card")

	// Without SignCards, no signatures.
	plain := start(t, server.Config{Seed: 11, StepDelay: -1})
	_, _, b = plain.do(http.MethodGet, "/.well-known/agent-card.json", nil, nil)
	assert.NotContains(t, string(b), "signatures")
}
