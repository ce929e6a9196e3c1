package interop

import (
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/wire"
)

// underclaimingMock serves an agent that has streaming, push and an
// extended card, behind a card changed by spec.
func underclaimingMock(t *testing.T, spec string) *server.Server {
	t.Helper()
	ac := agentWith("vip", 22, func(c *cards.Card) {
		c.Capabilities.ExtendedAgentCard = true
		c.Capabilities.PushNotifications = true
	})
	ac.ExtendedCard = cards.Generate("vip", 22)
	ac.Behaviors = []behaviors.Behavior{must(behaviors.Parse(spec))}
	return startMock(t, server.Config{Seed: 22, StepDelay: 2 * time.Millisecond, Agents: []server.AgentConfig{ac}})
}

// ops counts the A2A requests of op the mock received.
func ops(s *server.Server, op wire.Op) int {
	n := 0
	for _, e := range s.Journal().Entries() {
		if e.Kind == server.EntryRequest && e.Op == op {
			n++
		}
	}
	return n
}

// TestBehaviorCardUnderclaims: both SDKs believe a card that denies
// streaming and fall back to SendMessage (one Task event, no stream
// request). a2a-go v2 also refuses GetExtendedAgentCard locally (the server
// is never asked), but still sends push-config calls. A wrong interface
// protocolVersion makes a2a-go v2 find no compatible transport at all,
// while @a2a-js/sdk ignores protocolVersion and talks v1.0 anyway.
func TestBehaviorCardUnderclaims(t *testing.T) {
	t.Parallel()
	t.Run("capabilities", func(t *testing.T) {
		t.Parallel()
		s := underclaimingMock(t, "card-underclaims:claims=streaming|pushNotifications|extendedAgentCard")
		for _, b := range v1Bindings {
			c, card := v1Client(t, s.URL(), b)
			require.False(t, card.Capabilities.Streaming)
			d := drain(c.SendStreamingMessage(testCtx(t), &a2a.SendMessageRequest{Message: userText("x")}))
			require.NoError(t, d.err)
			assert.Equal(t, []string{"task:completed"}, kinds(d.events), "SendMessage's answer as the only event")
			_, err := c.GetExtendedAgentCard(testCtx(t), &a2a.GetExtendedAgentCardRequest{})
			assert.ErrorIs(t, err, a2a.ErrExtendedCardNotConfigured)
			_, err = c.ListTaskPushConfigs(testCtx(t), &a2a.ListTaskPushConfigRequest{TaskID: "x"})
			assert.ErrorIs(t, err, a2a.ErrTaskNotFound, "the push call reached the server")
		}
		for _, tr := range jsTransports {
			r := jsProbe(t, s.URL(), tr, "stream")
			require.Nil(t, r.Error, r.Raw)
			assert.Equal(t, []string{"task:TASK_STATE_COMPLETED"}, r.eventKinds(), tr)
		}
		assert.Zero(t, ops(s, wire.OpStream), "no SDK asked to stream")
		assert.Zero(t, ops(s, wire.OpExtendedCard))
		assert.Equal(t, 2, ops(s, wire.OpListPushConfigs))
	})
	t.Run("protocol-version", func(t *testing.T) {
		t.Parallel()
		s := underclaimingMock(t, "card-underclaims:claims=protocol-version")
		card, err := agentcard.NewResolver(httpClient(t)).Resolve(testCtx(t), s.URL())
		require.NoError(t, err)
		for _, b := range v1Bindings {
			_, err = a2aclient.NewFromCard(testCtx(t), card, a2aclient.WithDefaultsDisabled(), b.option(t))
			require.Error(t, err, b.name)
			assert.Contains(t, err.Error(), "no compatible transports found", b.name)
		}
		for _, tr := range jsTransports {
			r := jsProbe(t, s.URL(), tr, "stream")
			require.Nil(t, r.Error, r.Raw)
			assert.Equal(t, jsHonest, r.eventKinds(), tr)
		}
	})
}

// TestBehaviorTenant: a2a-go v2 and @a2a-js/sdk both carry the tenant the
// card's interface declares into every request (the params' tenant over
// JSON-RPC, the /{tenant} path prefix over HTTP+JSON), so a
// tenant-requiring agent serves them. Asked for the task under another
// tenant, a2a-go v2 gets TaskNotFound from mode=require and the other
// tenant's task from mode=leak: nothing on the client side tells them apart.
func TestBehaviorTenant(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"require", "leak"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			m := behaviorMock(t, 995, -1, testkit.WithBehavior("", "tenant:mode="+mode))
			for _, b := range v1Bindings {
				c, card := v1Client(t, m.URL, b)
				require.Equal(t, "acme", card.SupportedInterfaces[0].Tenant)
				task := sendTask(testCtx(t), t, c, &a2a.SendMessageRequest{Message: userText("x")})
				got, err := c.GetTask(testCtx(t), &a2a.GetTaskRequest{ID: task.ID})
				require.NoError(t, err, "%s: the card's tenant is sent", b.name)
				assert.Equal(t, task.ID, got.ID)
				other, err := c.GetTask(testCtx(t), &a2a.GetTaskRequest{ID: task.ID, Tenant: "globex"})
				if mode == "require" {
					assert.ErrorIs(t, err, a2a.ErrTaskNotFound, b.name)
				} else {
					require.NoError(t, err, "%s: the leak", b.name)
					assert.Equal(t, task.ID, other.ID)
				}
			}
			for _, tr := range jsTransports {
				r := jsProbe(t, m.URL, tr, "send")
				require.Nil(t, r.Error, "%s: %s", tr, r.Raw)
				assert.Equal(t, "TASK_STATE_COMPLETED", r.Result.State)
			}
			rest := 0
			for _, e := range m.Journal() {
				if e.Kind == server.EntryRequest && e.Binding == wire.BindingREST && !strings.Contains(e.Path, "/globex/") {
					rest++
					assert.Contains(t, e.Path, "/rest/acme/", "HTTP+JSON requests carry the tenant prefix")
				}
			}
			assert.Positive(t, rest)
		})
	}
}

// TestBehaviorCardSignature: @a2a-js/sdk's verifyAgentCardSignature, fed
// keys from the signature's jku by kid (as its documentation shows),
// accepts the honest signature (Config.SignCards and mode=valid) and
// first-bad (it tries every signature), and rejects tampered,
// wrong-canonical-form, unknown-kid, alg-none, hs256 and jku-unreachable.
// It accepts expired-key and jku-http: neither a key's exp nor the jku's
// scheme is the SDK's concern, the retriever must check them. a2a-go v2.4.0
// verifies nothing: it resolves every one of these cards without a word,
// and hands out an unsigned extended card just the same.
func TestBehaviorCardSignature(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode     string
		verified bool
	}{
		{"", true}, {"valid", true}, {"tampered", false}, {"wrong-canonical-form", false}, {"unknown-kid", false},
		{"alg-none", false}, {"hs256", false}, {"expired-key", true}, {"first-bad", true}, {"jku-http", true},
		{"jku-unreachable", false},
	} {
		t.Run("mode="+tc.mode, func(t *testing.T) {
			t.Parallel()
			opt := testkit.WithSignedCards()
			if tc.mode != "" {
				opt = testkit.WithBehavior("", "card-signature:mode="+tc.mode)
			}
			m := behaviorMock(t, 997, -1, opt)
			r := jsProbe(t, m.URL, "JSONRPC", "verify")
			if tc.verified {
				assert.Nil(t, r.Error, r.Raw)
			} else if assert.NotNil(t, r.Error, r.Raw) {
				assert.Equal(t, "No valid signatures found on agent card.", r.Error.Message)
			}
			card, err := agentcard.NewResolver(httpClient(t)).Resolve(testCtx(t), m.URL)
			require.NoError(t, err, "a2a-go v2 does not verify signatures")
			assert.NotEmpty(t, card.Signatures)
		})
	}
	t.Run("extended-unsigned", func(t *testing.T) {
		t.Parallel()
		ac := agentWith("vip", 998, func(c *cards.Card) { c.Capabilities.ExtendedAgentCard = true })
		ac.ExtendedCard = cards.Generate("vip", 998)
		ac.Behaviors = []behaviors.Behavior{must(behaviors.Parse("card-signature:mode=extended-unsigned"))}
		s := startMock(t, server.Config{Seed: 998, StepDelay: -1, Agents: []server.AgentConfig{ac}})
		r := jsProbe(t, s.URL(), "JSONRPC", "verify")
		assert.Nil(t, r.Error, "the public card is signed: %s", r.Raw)
		c, card := v1Client(t, s.URL(), v1Bindings[0])
		require.NotEmpty(t, card.Signatures)
		ext, err := c.GetExtendedAgentCard(testCtx(t), &a2a.GetExtendedAgentCardRequest{})
		require.NoError(t, err)
		assert.Empty(t, ext.Signatures, "accepted unsigned, where the public card was signed")
	})
}

// TestBehaviorCardSignatureJournalChecks: a2a-go v2 uses an agent whose
// card signature is tampered with, never fetching the JWKS; both journal
// checks say so.
func TestBehaviorCardSignatureJournalChecks(t *testing.T) {
	t.Parallel()
	m := behaviorMock(t, 999, -1, testkit.WithBehavior("", "card-signature:mode=tampered"))
	c, _ := v1Client(t, m.URL, v1Bindings[0])
	sendTask(testCtx(t), t, c, &a2a.SendMessageRequest{Message: userText("x")})
	rt := &failRecorder{}
	assert.False(t, testkit.AssertNoRequestAfterBadCardSignature(rt, m.Journal(), "agent"))
	assert.Contains(t, rt.msg, "used after its card failed signature verification (tampered)")
	rt = &failRecorder{}
	assert.False(t, testkit.AssertCardSignatureChecked(rt, m.Journal(), "agent"))
	assert.Contains(t, rt.msg, "its signing keys (JWKS) never")
}
