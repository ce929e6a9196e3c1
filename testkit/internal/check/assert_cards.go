package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/server"
)

// badSignatureModes are the card-signature modes whose card a verifying
// client must refuse.
var badSignatureModes = []string{"tampered", "wrong-canonical-form", "unknown-kid", "alg-none", "hs256", "expired-key", "jku-unreachable"}

// badSignature returns the card-signature mode of a card fetch that served
// a signature a verifier must refuse, or "".
func badSignature(e server.Entry) string {
	for _, b := range e.Behaviors {
		rest, ok := strings.CutPrefix(b, "card-signature")
		if !ok {
			continue
		}
		mode := "tampered" // the behavior's default
		for _, kv := range strings.Split(strings.TrimPrefix(rest, ":"), ",") {
			if v, ok := strings.CutPrefix(kv, "mode="); ok {
				mode = v
			}
		}
		if slices.Contains(badSignatureModes, mode) {
			return mode
		}
	}
	return ""
}

// AssertCardSignatureChecked asserts that the client fetched the agent's
// signing keys (its JWKS, the jku of the card's signatures) after fetching
// the card and before its first A2A request: the visible part of verifying
// a signed card (a2a-js#605, a2a-go#368). Use it with a mock that signs
// cards (WithSignedCards or the behavior card-signature). A client that
// caches keys across agents or runs may skip the fetch legitimately; this
// assertion is for the first contact.
func AssertCardSignatureChecked(t assert.TestingT, journal []server.Entry, agent string, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	cardSeen, keysSeen := false, false
	for _, e := range journal {
		if e.Agent != agent {
			continue
		}
		switch e.Kind {
		case server.EntryCard:
			cardSeen, keysSeen = true, false
		case server.EntryJWKS:
			keysSeen = keysSeen || cardSeen
		case server.EntryRequest:
			if cardSeen && keysSeen {
				return true
			}
			obs := "no card fetch before it"
			if cardSeen {
				obs = "the card was fetched, its signing keys (JWKS) never"
			}
			return assert.Fail(t, failure(fmt.Sprintf("agent %s: card signature not checked before use", agent),
				fmt.Sprintf("%s over %s (entry %d)", e.Method, e.Binding, e.Seq),
				"a client verifying signed cards fetches the card, then the JWKS its signature names, before its first request",
				obs, ""), msgAndArgs...)
		}
	}
	return assert.Fail(t, failure(fmt.Sprintf("agent %s: no A2A request in the journal", agent), "sent no request",
		"a card fetch, a JWKS fetch, then requests", "nothing to check", ""), msgAndArgs...)
}

// AssertNoRequestAfterBadCardSignature asserts that after the agent served
// a card whose signature a verifier must refuse (the behavior
// card-signature in mode tampered, wrong-canonical-form, unknown-kid,
// alg-none, hs256, expired-key or jku-unreachable), the client sent that
// agent no A2A request, until it fetched a card again that was not bad.
func AssertNoRequestAfterBadCardSignature(t assert.TestingT, journal []server.Entry, agent string, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	bad, at := "", int64(0)
	var msgs []string
	for _, e := range journal {
		if e.Agent != agent {
			continue
		}
		switch e.Kind {
		case server.EntryCard:
			bad, at = badSignature(e), e.Seq
		case server.EntryRequest:
			if bad == "" {
				continue
			}
			msgs = append(msgs, failure(fmt.Sprintf("agent %s: used after its card failed signature verification (%s)", agent, bad),
				fmt.Sprintf("%s over %s (entry %d, task %q)", e.Method, e.Binding, e.Seq, e.TaskID+e.RefTaskID),
				fmt.Sprintf("a card whose signature does not verify (card-signature:mode=%s, entry %d) is refused, and the agent not used", bad, at),
				"the client went on to use the agent", ""))
			bad = "" // one report per bad card
		}
	}
	if len(msgs) == 0 {
		return true
	}
	return assert.Fail(t, strings.Join(msgs, "\n"), msgAndArgs...)
}
