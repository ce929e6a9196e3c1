package interop

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
)

// TestPyBehaviorCardSignature: a2a-sdk verifies card signatures only when
// the application passes a signature_verifier; by default (create_client,
// A2ACardResolver) every faulty card resolves without a word. With the
// SDK's create_signature_verifier (EdDSA allowed, keys fetched from the
// signature's jku by kid with PyJWT's PyJWKClient), it accepts the honest
// signature (Config.SignCards and mode=valid) and first-bad (it tries each
// signature), and rejects tampered, wrong-canonical-form (it canonicalizes
// the card it parsed, defaults dropped), unknown-kid, alg-none, hs256 and
// jku-unreachable with InvalidSignaturesError. It accepts expired-key and
// jku-http: neither a key's exp nor the jku's scheme is checked by the SDK
// or by PyJWKClient. The same verdicts as @a2a-js/sdk.
func TestPyBehaviorCardSignature(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mode     string
		verified bool
	}{
		{"", true}, {"valid", true}, {"tampered", false}, {"wrong-canonical-form", false}, {"unknown-kid", false},
		{"alg-none", false}, {"hs256", false}, {"expired-key", true}, {"first-bad", true}, {"jku-http", true},
		{"jku-unreachable", false},
	}
	var jobs []pyJob
	for _, tc := range cases {
		opt := testkit.WithSignedCards()
		if tc.mode != "" {
			opt = testkit.WithBehavior("", "card-signature:mode="+tc.mode)
		}
		m := behaviorMock(t, 997, -1, opt)
		jobs = append(jobs, pyJob{URL: m.URL, Transport: "JSONRPC", Action: "verify"},
			pyJob{URL: m.URL, Transport: "JSONRPC", Action: "send"})
	}
	res := pyProbe(t, jobs...)
	for i, tc := range cases {
		t.Run("mode="+tc.mode, func(t *testing.T) {
			r := res[2*i]
			if tc.verified {
				require.Nil(t, r.Error, r.Raw)
				assert.Positive(t, r.Card.Signatures)
			} else if assert.NotNil(t, r.Error, r.Raw) {
				assert.Equal(t, jsError{Name: "InvalidSignaturesError", Message: "No valid signature found"}, *r.Error)
			}
			r = res[2*i+1]
			require.Nil(t, r.Error, "without a verifier the card is used: %s", r.Raw)
			assert.Positive(t, r.Card.Signatures)
			assert.Equal(t, "TASK_STATE_COMPLETED", r.Result.State)
		})
	}
}

// TestPyBehaviorCardSignatureExtended: a2a-sdk's GetExtendedAgentCard takes
// a signature_verifier too; given the one that accepted the signed public
// card, it refuses an unsigned extended card (NoSignatureError) and one
// signed by another key (InvalidSignaturesError). Without a verifier
// (the default) it takes either.
func TestPyBehaviorCardSignatureExtended(t *testing.T) {
	t.Parallel()
	var jobs []pyJob
	signers := []string{"none", "other"}
	for _, signer := range signers {
		ac := agentWith("vip", 998, func(c *cards.Card) { c.Capabilities.ExtendedAgentCard = true })
		ac.ExtendedCard = cards.Generate("vip", 998)
		ac.Behaviors = []behaviors.Behavior{must(behaviors.Parse("card-signature:mode=extended-unsigned,signer=" + signer))}
		s := startMock(t, server.Config{Seed: 998, StepDelay: -1, Agents: []server.AgentConfig{ac}})
		jobs = append(jobs, pyEach(s.URL(), "extended", "")...)
	}
	res := pyProbe(t, jobs...)
	want := map[string]jsError{
		"none":  {Name: "NoSignatureError", Message: "AgentCard has no signatures to verify."},
		"other": {Name: "InvalidSignaturesError", Message: "No valid signature found"},
	}
	for i, signer := range signers {
		for k, tr := range pyTransports {
			r := res[2*i+k]
			require.NotNil(t, r.Card, "the public card verified: %s", r.Raw)
			assert.Positive(t, r.Card.Signatures)
			if assert.NotNil(t, r.Error, "%s %s: %s", signer, tr, r.Raw) {
				assert.Equal(t, want[signer], *r.Error, "%s %s", signer, tr)
			}
		}
	}
}

// TestPyBehaviorPushAuthDialect registers a webhook through a2a-sdk's
// CreateTaskPushConfig (the probe serves it on 127.0.0.1:0) and records,
// per push-auth-dialect presentation, which token header each notification
// carried and what the SDK's decoder makes of the body (parse_lenient into
// a StreamResponse, as its transports decode events). The SDK has no push
// receiver of its own, so the token check is the application's; the
// decoder ignores unknown members, so a bare Task (body=task) decodes
// silently into an empty StreamResponse, no error.
func TestPyBehaviorPushAuthDialect(t *testing.T) {
	t.Parallel()
	cases := []struct {
		spec, header, ct string
		decodes          bool
	}{
		{"push-auth-dialect", "x-a2a-notification-token", "application/a2a+json", true},
		{"push-auth-dialect:token=v10,content-type=none", "a2a-notification-token", "", true},
		{"push-auth-dialect:token=authorization,content-type=json", "authorization", "application/json", true},
		{"push-auth-dialect:token=keep,body=task", "a2a-notification-token", "application/a2a+json", false},
	}
	var jobs []pyJob
	for _, tc := range cases {
		ac, skill := pushAgent(64, tc.spec)
		s := startMock(t, server.Config{Seed: 64, StepDelay: -1, Agents: []server.AgentConfig{ac}})
		jobs = append(jobs, pyJob{URL: s.URL(), Transport: "JSONRPC", Action: "push", Arg: skill, TimeoutMS: 15000})
	}
	res := pyProbe(t, jobs...)
	for i, tc := range cases {
		t.Run(tc.spec, func(t *testing.T) {
			r := res[i]
			require.Nil(t, r.Error, r.Raw)
			assert.Equal(t, "TASK_STATE_COMPLETED", r.Result.State)
			require.GreaterOrEqual(t, len(r.Pushes), 2, "working and completed were pushed: %s", r.Raw)
			var states []string
			for _, p := range r.Pushes {
				assert.Len(t, p.Tokens, 1, "one token header: %v", p.Tokens)
				want := "tok-py"
				if tc.header == "authorization" {
					want = "Bearer tok-py"
				}
				assert.Equal(t, want, p.Tokens[tc.header], "%v", p.Tokens)
				assert.Equal(t, tc.ct, p.ContentType)
				require.Nil(t, p.DecodeError, "the lenient decoder raises nothing")
				require.NotNil(t, p.Decoded)
				if tc.decodes {
					assert.Contains(t, []string{"statusUpdate", "artifactUpdate"}, p.Decoded.Kind)
					states = append(states, p.Decoded.State)
				} else {
					assert.Equal(t, "none", p.Decoded.Kind, "a bare Task decodes to an empty StreamResponse")
				}
			}
			if tc.decodes {
				assert.Contains(t, states, "TASK_STATE_COMPLETED")
			}
		})
	}
}
