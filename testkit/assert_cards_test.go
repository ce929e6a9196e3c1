package testkit_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/testkit"
)

func get(t *testing.T, url string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	_ = resp.Body.Close()
}

func TestAssertCardSignatureChecked(t *testing.T) {
	t.Parallel()
	m := testkit.Start(t, testkit.WithSeed(12), testkit.WithStepDelay(-1), testkit.WithSignedCards())
	c := &rawClient{t: t, url: m.AgentURL("agent") + "/", version: "1.0"}
	get(t, m.CardURL("agent"))
	get(t, m.AgentURL("agent")+"/.well-known/jwks.json")
	c.send("m1", "hi", "", "")
	passes(t, func(rt *recT) bool { return testkit.AssertCardSignatureChecked(rt, m.Journal(), "agent") })

	m2 := testkit.Start(t, testkit.WithSeed(12), testkit.WithStepDelay(-1), testkit.WithSignedCards())
	c2 := &rawClient{t: t, url: m2.AgentURL("agent") + "/", version: "1.0"}
	get(t, m2.CardURL("agent"))
	c2.send("m1", "hi", "", "")
	fails(t, func(rt *recT) bool { return testkit.AssertCardSignatureChecked(rt, m2.Journal(), "agent") },
		"agent agent: card signature not checked before use", "SendMessage over JSONRPC",
		"declared:   a client verifying signed cards fetches the card, then the JWKS",
		"observed:   the card was fetched, its signing keys (JWKS) never")
}

func TestAssertNoRequestAfterBadCardSignature(t *testing.T) {
	t.Parallel()
	m := testkit.Start(t, testkit.WithSeed(13), testkit.WithStepDelay(-1),
		testkit.WithBehavior("agent", "card-signature:mode=first-bad,call=1", "card-signature:mode=alg-none,call=2"))
	c := &rawClient{t: t, url: m.AgentURL("agent") + "/", version: "1.0"}
	get(t, m.CardURL("agent")) // first-bad: a verifier accepts it
	c.send("m1", "hi", "", "")
	passes(t, func(rt *recT) bool { return testkit.AssertNoRequestAfterBadCardSignature(rt, m.Journal(), "agent") })
	get(t, m.CardURL("agent")) // alg-none
	c.send("m2", "hi", "", "")
	fails(t, func(rt *recT) bool { return testkit.AssertNoRequestAfterBadCardSignature(rt, m.Journal(), "agent") },
		"agent agent: used after its card failed signature verification (alg-none)", "SendMessage over JSONRPC",
		"declared:   a card whose signature does not verify (card-signature:mode=alg-none", "observed:   the client went on to use the agent")
}
