package cardsig_test

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cardsig"
)

const card = `{"name":"a","description":"d","version":"1.0.0","capabilities":{"streaming":true,"pushNotifications":false},
"skills":[{"id":"s","name":"S","description":"x","tags":["t"],"examples":[]}],"iconUrl":""}`

func TestCanonicalDropsDefaultsAndSignatures(t *testing.T) {
	t.Parallel()
	got, err := cardsig.Canonical([]byte(`{"signatures":[{"protected":"x","signature":"y"}],"b":0,"a":{"x":false,"y":""},`+card[1:]), false)
	require.NoError(t, err)
	assert.Equal(t, `{"capabilities":{"pushNotifications":false,"streaming":true},"description":"d","name":"a","skills":[{"description":"x","id":"s","name":"S","tags":["t"]}],"version":"1.0.0"}`, string(got))
	kept, err := cardsig.Canonical([]byte(card), true)
	require.NoError(t, err)
	assert.Contains(t, string(kept), `"pushNotifications":false`)
	assert.Contains(t, string(kept), `"iconUrl":""`)
}

func TestSignAndVerify(t *testing.T) {
	t.Parallel()
	k := cardsig.DeriveKey(42, "agent")
	assert.Equal(t, k, cardsig.DeriveKey(42, "agent"), "keys are a function of the seed")
	assert.NotEqual(t, k.ID, cardsig.DeriveKey(43, "agent").ID)
	keys := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{k.Public()}}

	signed, err := cardsig.SignCard([]byte(card), k, "http://127.0.0.1/jwks.json")
	require.NoError(t, err)
	again, err := cardsig.SignCard([]byte(card), k, "http://127.0.0.1/jwks.json")
	require.NoError(t, err)
	assert.Equal(t, string(signed), string(again), "EdDSA signatures are deterministic")
	require.NoError(t, cardsig.Verify(signed, keys))

	var c struct {
		Signatures []cardsig.Signature `json:"signatures"`
	}
	require.NoError(t, json.Unmarshal(signed, &c))
	require.Len(t, c.Signatures, 1)
	var hdr map[string]any
	require.NoError(t, json.Unmarshal(mustB64(t, c.Signatures[0].Protected), &hdr))
	assert.Equal(t, map[string]any{"alg": "EdDSA", "kid": k.ID, "typ": "JOSE", "jku": "http://127.0.0.1/jwks.json"}, hdr)

	// A changed field, another key, and no signature all fail.
	var m map[string]any
	require.NoError(t, json.Unmarshal(signed, &m))
	m["description"] = "changed"
	tampered, _ := json.Marshal(m)
	assert.ErrorIs(t, cardsig.Verify(tampered, keys), cardsig.ErrNoValidSignature)
	other := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{cardsig.DeriveKey(42, "other").Public()}}
	assert.Error(t, cardsig.Verify(signed, other))
	assert.Error(t, cardsig.Verify([]byte(card), keys))

	// Field order and whitespace do not matter: the payload is canonical.
	m["description"] = "d"
	reordered, _ := json.MarshalIndent(m, "", "   ")
	require.NoError(t, cardsig.Verify(reordered, keys))

	set, err := cardsig.JWKS([]jose.JSONWebKey{k.Public()}, map[string]map[string]any{k.ID: {"exp": 1}})
	require.NoError(t, err)
	var parsed jose.JSONWebKeySet
	require.NoError(t, json.Unmarshal(set, &parsed))
	require.Len(t, parsed.Keys, 1)
	assert.Equal(t, k.ID, parsed.Keys[0].KeyID)
	assert.Contains(t, string(set), `"exp":1`)
}

func mustB64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	require.NoError(t, err)
	return b
}
