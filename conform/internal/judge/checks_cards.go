package judge

import (
	"fmt"
	"strings"

	"github.com/a2amock/a2amock/server"
)

// cardChecks judge how a client treats an agent's card over a run: that it
// revalidates a card that changed, and that it verifies a signed one (issue
// 12's card faults, mirrored as conform checks).
var cardChecks = []*Check{
	{ID: "card-refetched-on-change", Summary: "after the agent's card changed, the client fetches it again before its next message",
		Doc: "The scenario changes an agent's card while the client runs (conform.cardChange: when the agent receives the client's nth message, a journal note of kind note, detail card-change, marks the change, and the card served from then on differs, with another ETag; cards are served with Cache-Control: no-cache, max-age=0). " +
			"Fails when the client's next message to that agent after the one that triggered the change (SendMessage or SendStreamingMessage: where a client relies on what the card says) came without a card fetch between the change and it. GetTask, CancelTask and SubscribeToTask of a task begun under the old card do not count. " +
			"Passes when the client sent no further message (nothing stale was used) and when the change never happened (the client sent fewer messages). It judges the refetch, not what the client did with the new card (testkit.AssertCardRefetchedOnChange, counted from the change note).",
		judge: judgeCardRefetched},
	{ID: "card-signature-checked", Summary: "a client served a signed card fetches the keys its signature names before using the agent, or does not use it",
		Doc: "For every agent that served the client a signed card (the behavior card-signature, or a server that signs every card), the client's first A2A request to that agent after the card must come after a fetch of the agent's JWKS (the jku of the signature, /.well-known/jwks.json): the visible part of verifying the signature (testkit.AssertCardSignatureChecked). A client that never used the agent after the card (it refused it) passes too. " +
			"Limits: the journal sees the key fetch, not the verification; a client that verifies with keys it holds from elsewhere (pinned, or cached from an earlier run) fails, and one that fetches the keys but ignores a failed verification passes (no-use-after-bad-card-signature catches it).",
		judge: judgeCardSignatureChecked},
}

func judgeCardRefetched(r *Run) Verdict {
	var ev Evidence
	var passed []string
	for _, n := range r.Journal {
		if n.Kind != server.EntryNote || !strings.HasPrefix(n.Detail, CardChangeNote) {
			continue
		}
		ev.entry(n)
		var trigger, next, fetch *server.Entry
	scan:
		for i := range r.Journal {
			e := &r.Journal[i]
			if e.Seq <= n.Seq || e.Agent != n.Agent {
				continue
			}
			switch {
			case e.Kind == server.EntryCard && fetch == nil:
				fetch = e
			case isSend(*e) && trigger == nil:
				trigger = e
			case isSend(*e):
				next = e
				break scan
			}
		}
		if trigger != nil {
			ev.entry(*trigger)
		}
		if next == nil {
			passed = append(passed, fmt.Sprintf("the card of %s changed (journal #%d) and the client sent it no further message", n.Agent, n.Seq))
			continue
		}
		ev.entry(*next)
		if fetch == nil || fetch.Seq > next.Seq {
			return fail(ev, "the card of agent %s changed (journal #%d, %s); the client's next message (journal #%d, %s, task %q) came without fetching the card again (no card fetch between the change and it; the card is served with an ETag and Cache-Control: no-cache, max-age=0)",
				n.Agent, n.Seq, n.Detail, next.Seq, next.Method, orDefault(next.RefTaskID, "new"))
		}
		ev.entry(*fetch)
		passed = append(passed, fmt.Sprintf("the card of %s changed (journal #%d); the client fetched it again (journal #%d) before its next message (journal #%d)", n.Agent, n.Seq, fetch.Seq, next.Seq))
	}
	if len(passed) == 0 {
		return pass("the card never changed in this run (the client sent fewer messages than the change waits for)", ev)
	}
	return pass(strings.Join(passed, "; "), ev)
}

// signatureBehavior returns the card-signature behavior that acted on a
// card fetch, or "".
func signatureBehavior(e server.Entry) string {
	for _, b := range e.Behaviors {
		if strings.HasPrefix(b, "card-signature") {
			return b
		}
	}
	return ""
}

func judgeCardSignatureChecked(r *Run) Verdict {
	var ev Evidence
	var agents []string
	first := map[string]server.Entry{}
	for _, e := range r.Journal {
		if e.Kind != server.EntryCard || (!r.SignsCards && signatureBehavior(e) == "") {
			continue
		}
		if _, seen := first[e.Agent]; !seen {
			first[e.Agent] = e
			agents = append(agents, e.Agent)
		}
	}
	if len(agents) == 0 {
		return pass("no signed card was served to the client", ev)
	}
	var passed []string
	for _, agent := range agents {
		card := first[agent]
		ev.entry(card)
		how := orDefault(signatureBehavior(card), "signed by the server (signCards)")
		var use, keys *server.Entry
		for i := range r.Journal {
			e := &r.Journal[i]
			if e.Seq <= card.Seq || e.Agent != agent {
				continue
			}
			if e.Kind == server.EntryJWKS && keys == nil {
				keys = e
			}
			if e.Kind == server.EntryRequest {
				use = e
				break
			}
		}
		switch {
		case keys != nil:
			ev.entry(*keys)
			passed = append(passed, fmt.Sprintf("%s: the client fetched the signing keys (journal #%d) after the card (#%d, %s)", agent, keys.Seq, card.Seq, how))
		case use == nil:
			passed = append(passed, fmt.Sprintf("%s: the client never used the agent after its signed card (#%d, %s): it refused it", agent, card.Seq, how))
		default:
			ev.entry(*use)
			return fail(ev, "agent %s served a signed card (journal #%d, %s); the client used the agent (journal #%d, %s) without fetching the keys the signature names (the JWKS at its jku, /.well-known/jwks.json): it cannot have verified the signature",
				agent, card.Seq, how, use.Seq, use.Method)
		}
	}
	return pass(strings.Join(passed, "; "), ev)
}
