package judge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
)

// clientChecks are the journal checks of client-side bugs seen in the
// field (issue 12), judged by the testkit assertion of the same rule so a
// Go test and a conform run agree. A scenario runs them when it lists them.
var clientChecks = []*Check{
	{ID: "no-page-token-loop", Summary: "the client stops listing when nextPageToken repeats the pageToken it sent",
		Doc:   "Fails when the client sent ListTasks a pageToken again after the agent had answered that very token with it as nextPageToken (testkit.AssertNoPageTokenLoop; the behavior list-pagination-loop provokes it).",
		judge: journalJudge(testkit.AssertNoPageTokenLoop, "no ListTasks pageToken was followed in a loop")},
	{ID: "retry-reuses-message-id", Summary: "a message resent after a failed sending reuses its messageId",
		Doc:   "Fails when, after a send the agent answered with an error, never answered, or a behavior broke (http-error, connection-reset, malformed-json, ...), the client's next send of the same text to the same task or context carries another messageId (testkit.AssertRetryReusedMessageID).",
		judge: journalJudge(testkit.AssertRetryReusedMessageID, "every resent message reused its messageId")},
	{ID: "sends-only-defined-fields", Summary: "every request carries only fields its dialect defines",
		Doc:   "Fails when a request carried a field its dialect does not define, which the agent skipped unread as servers do: v0.3's configuration.blocking or pushNotificationConfig sent to a v1.0 agent, a part's kind, a ListTasks page_size (the proto's name; v1.0's JSON reads pageSize); v1.0's returnImmediately or tenant sent to a v0.3 agent (testkit.AssertNoIgnoredFields; noted for v1.0 over JSON-RPC and HTTP+JSON, and for v0.2 and v0.3). The id keeps its first name, sends, which baselines name.",
		judge: journalJudge(testkit.AssertNoIgnoredFields, "no request carried a field the agent ignored")},
	{ID: "no-use-after-bad-card-signature", Summary: "the client does not use an agent whose card signature fails verification",
		Doc:   "Fails when the client sent an A2A request to an agent after that agent served a card whose signature a verifier must refuse (the behavior card-signature in mode tampered, wrong-canonical-form, unknown-kid, alg-none, hs256, expired-key or jku-unreachable), per agent (testkit.AssertNoRequestAfterBadCardSignature).",
		judge: perAgentJudge(testkit.AssertNoRequestAfterBadCardSignature, "no agent was used after a bad card signature")},
}

// failMessage is an assert.TestingT that keeps the failure message.
type failMessage struct{ msg strings.Builder }

// Errorf keeps the message of a testify failure without its "Error Trace"
// (the stack of the conform runner, of no use in a report).
func (f *failMessage) Errorf(format string, args ...any) {
	m := fmt.Sprintf(format, args...)
	if i := strings.Index(m, "Error:"); i >= 0 && strings.Contains(m[:i], "Error Trace:") {
		m = m[i+len("Error:"):]
	}
	lines := strings.Split(m, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	f.msg.WriteString(strings.Join(slices.DeleteFunc(lines, func(l string) bool { return l == "" }), "\n"))
}

// journalJudge judges a run with a testkit assertion over the whole journal.
func journalJudge(assertion func(t assert.TestingT, j []server.Entry, msgAndArgs ...any) bool, passed string) func(r *Run) Verdict {
	return func(r *Run) Verdict {
		var f failMessage
		if assertion(&f, r.Journal) {
			return pass(passed, Evidence{})
		}
		return fail(Evidence{}, "%s", strings.TrimSpace(f.msg.String()))
	}
}

// perAgentJudge judges a run with a testkit assertion per agent.
func perAgentJudge(assertion func(t assert.TestingT, j []server.Entry, agent string, msgAndArgs ...any) bool, passed string) func(r *Run) Verdict {
	return func(r *Run) Verdict {
		seen := map[string]bool{}
		var msgs []string
		for _, e := range r.Journal {
			if e.Agent == "" || seen[e.Agent] {
				continue
			}
			seen[e.Agent] = true
			var f failMessage
			if !assertion(&f, r.Journal, e.Agent) {
				msgs = append(msgs, strings.TrimSpace(f.msg.String()))
			}
		}
		if len(msgs) == 0 {
			return pass(passed, Evidence{})
		}
		return fail(Evidence{}, "%s", strings.Join(msgs, "\n"))
	}
}
