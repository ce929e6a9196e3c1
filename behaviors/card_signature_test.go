package behaviors_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/cardsig"
)

// signedCard fetches the raw card and the agent's JWKS.
func (r *rig) signedCard() ([]byte, jose.JSONWebKeySet) {
	r.t.Helper()
	status, card := r.fetch("/.well-known/agent-card.json")
	require.Equal(r.t, http.StatusOK, status)
	status, set := r.fetch("/.well-known/jwks.json")
	require.Equal(r.t, http.StatusOK, status)
	var keys jose.JSONWebKeySet
	require.NoError(r.t, json.Unmarshal(set, &keys))
	return card, keys
}

func protectedHeaders(t *testing.T, card []byte) []map[string]any {
	t.Helper()
	var c struct {
		Signatures []cardsig.Signature `json:"signatures"`
	}
	require.NoError(t, json.Unmarshal(card, &c))
	var out []map[string]any
	for _, s := range c.Signatures {
		b, err := base64.RawURLEncoding.DecodeString(s.Protected)
		require.NoError(t, err)
		var h map[string]any
		require.NoError(t, json.Unmarshal(b, &h))
		out = append(out, h)
	}
	return out
}

func TestCardSignatureValidAndJWKS(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{seed: 7}, parse(t, "card-signature:mode=valid"))
	card, keys := r.signedCard()
	require.NoError(t, cardsig.Verify(card, keys))
	h := protectedHeaders(t, card)
	require.Len(t, h, 1)
	assert.Equal(t, "EdDSA", h[0]["alg"])
	assert.Equal(t, r.base+"/.well-known/jwks.json", h[0]["jku"])
	assert.Len(t, keys.Keys, 2, "the signing key and the expired one")
	_, err := cards.Parse(card)
	require.NoError(t, err, "a signed card is still a valid card")

	again, _ := r.signedCard()
	assert.Equal(t, string(card), string(again), "deterministic")
}

func TestCardSignatureFaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode  string
		check func(t *testing.T, card []byte, h []map[string]any, r *rig)
	}{
		{"tampered", func(t *testing.T, card []byte, _ []map[string]any, _ *rig) {
			assert.Contains(t, string(card), "(changed after signing)")
		}},
		{"wrong-canonical-form", func(t *testing.T, card []byte, _ []map[string]any, _ *rig) {
			assert.Contains(t, string(card), `"documentationUrl":""`)
		}},
		{"unknown-kid", func(t *testing.T, _ []byte, h []map[string]any, _ *rig) {
			assert.True(t, strings.HasSuffix(h[0]["kid"].(string), "-unknown"))
		}},
		{"alg-none", func(t *testing.T, card []byte, h []map[string]any, _ *rig) {
			assert.Equal(t, "none", h[0]["alg"])
			assert.Contains(t, string(card), `"signature":""`)
		}},
		{"hs256", func(t *testing.T, _ []byte, h []map[string]any, _ *rig) { assert.Equal(t, "HS256", h[0]["alg"]) }},
		{"expired-key", func(t *testing.T, _ []byte, h []map[string]any, r *rig) {
			_, set := r.fetch("/.well-known/jwks.json")
			assert.Contains(t, string(set), `"exp":946684800`)
			assert.Contains(t, h[0]["kid"], "/expired")
		}},
		{"jku-unreachable", func(t *testing.T, _ []byte, h []map[string]any, _ *rig) {
			assert.Equal(t, "http://127.0.0.1:9/.well-known/jwks.json", h[0]["jku"])
		}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, rigOptions{seed: 7}, parse(t, "card-signature:mode="+tc.mode))
			card, keys := r.signedCard()
			h := protectedHeaders(t, card)
			require.NotEmpty(t, h)
			tc.check(t, card, h, r)
			if tc.mode == "expired-key" || tc.mode == "jku-unreachable" {
				require.NoError(t, cardsig.Verify(card, keys), "the signature is sound; only the key's exp, or where jku points, condemns it")
				return
			}
			assert.ErrorIs(t, cardsig.Verify(card, keys), cardsig.ErrNoValidSignature)
		})
	}
	t.Run("first-bad", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, rigOptions{seed: 7}, parse(t, "card-signature:mode=first-bad"))
		card, keys := r.signedCard()
		h := protectedHeaders(t, card)
		require.Len(t, h, 2)
		require.NoError(t, cardsig.Verify(card, keys), "the second signature verifies")
	})
}

func TestCardSignatureExtendedUnsigned(t *testing.T) {
	t.Parallel()
	for _, signer := range []string{"none", "other"} {
		r := newRig(t, rigOptions{seed: 7, caps: &cards.Capabilities{Streaming: true, ExtendedAgentCard: true}, extended: true},
			parse(t, "card-signature:mode=extended-unsigned,signer="+signer))
		card, keys := r.signedCard()
		require.NoError(t, cardsig.Verify(card, keys), "the public card is signed")
		rep := r.rpc("GetExtendedAgentCard", map[string]any{})
		require.Nil(t, rep.Error)
		if signer == "none" {
			assert.NotContains(t, string(rep.Result), "signatures")
		} else {
			assert.Contains(t, string(rep.Result), "signatures")
			assert.Error(t, cardsig.Verify(rep.Result, keys))
		}
	}
}

func TestCardSignatureRejectsBadParams(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"card-signature:mode=forged", "card-signature:signer=me"} {
		_, err := behaviorsParse(spec)
		assert.Error(t, err, spec)
	}
}

func TestCardSignatureOutOfScope(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{seed: 7}, parse(t, "card-signature:mode=tampered,call=1"))
	card, keys := r.signedCard()
	assert.ErrorIs(t, cardsig.Verify(card, keys), cardsig.ErrNoValidSignature, "call 1: tampered")
	card, _ = r.signedCard()
	assert.NotContains(t, string(card), "signatures", "call 2 is out of scope, and the server does not sign cards")
	_, err := cards.Parse(card)
	require.NoError(t, err)
}
