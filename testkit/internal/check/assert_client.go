package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// The assertions in this file catch client-side bugs reported against real
// A2A clients, from the mock's journal alone, so they apply to a client in
// any language (fetch its journal with FetchJournal). Filter the journal
// with JournalFor when the mock hosts several agents.

func isSend(e server.Entry) bool {
	return e.Kind == server.EntryRequest && (e.Op == wire.OpSend || e.Op == wire.OpStream)
}

// AssertContinuationCarriesTaskID asserts that every message the client
// sent in answer to a task waiting for it (input-required or
// auth-required) named the task by its taskId, with the task's contextId
// (or none). The message answering the task is the client's next send in
// the task's context after the task was interrupted. Clients seen sending
// the contextId only (the Vercel AI SDK provider, the AG-UI adapter and
// ADK: adk-python#4934, adcp-client#729) start a new task instead of
// continuing.
func AssertContinuationCarriesTaskID(t assert.TestingT, journal []server.Entry, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	ctxOf := map[string]string{}
	for _, e := range journal {
		if e.TaskID != "" && e.ContextID != "" && e.Kind != server.EntryRequest {
			if _, ok := ctxOf[e.TaskID]; !ok {
				ctxOf[e.TaskID] = e.ContextID
			}
		}
	}
	// waiting maps a context to the interrupted task awaiting an answer.
	type wait struct {
		task  string
		state wire.TaskState
		seq   int64
	}
	waiting := map[string]wait{}
	var msgs []string
	for _, e := range journal {
		switch {
		case (e.Kind == server.EntryEvent || e.Kind == server.EntryResponse) && e.State.Interrupted() && e.TaskID != "":
			if c := ctxOf[e.TaskID]; c != "" {
				waiting[c] = wait{task: e.TaskID, state: e.State, seq: e.Seq}
			}
		case isSend(e):
			// A send answers the task waiting in its context; one naming a
			// waiting task by its taskId answers that task whatever
			// contextId it carries.
			ctx := e.ContextID
			if c := ctxOf[e.RefTaskID]; c != "" && (ctx == "" || waiting[c].task == e.RefTaskID) {
				ctx = c
			}
			w, ok := waiting[ctx]
			if !ok {
				continue
			}
			delete(waiting, ctx)
			switch {
			case e.RefTaskID == "":
				msgs = append(msgs, failure(fmt.Sprintf("task %q: its %s was answered without its taskId", w.task, w.state),
					fmt.Sprintf("%s (entry %d, message %s) with contextId %s only", e.Method, e.Seq, e.MessageID, e.ContextID),
					fmt.Sprintf("a continuation of a task in %s (entry %d) carries taskId %s", w.state, w.seq, w.task),
					"no taskId: the agent starts a new task in the same context", ""))
			case e.RefTaskID != w.task:
				msgs = append(msgs, failure(fmt.Sprintf("task %q: its %s was answered to another task", w.task, w.state),
					fmt.Sprintf("%s (entry %d, message %s) naming task %s", e.Method, e.Seq, e.MessageID, e.RefTaskID),
					fmt.Sprintf("a continuation carries taskId %s", w.task), "taskId "+e.RefTaskID, ""))
			case e.ContextID != "" && e.ContextID != ctx:
				msgs = append(msgs, failure(fmt.Sprintf("task %q: continued with another contextId", w.task),
					fmt.Sprintf("%s (entry %d, message %s)", e.Method, e.Seq, e.MessageID),
					"a continuation carries the task's contextId "+ctx+" (or none)", "contextId "+e.ContextID, ""))
			}
		}
	}
	if len(msgs) == 0 {
		return true
	}
	return assert.Fail(t, fmt.Sprintf("%d continuation(s) without the task's ids:\n%s", len(msgs), strings.Join(msgs, "\n")), msgAndArgs...)
}

// AssertSentVersionHeader asserts that every v1.0 request in the journal
// carried an A2A-Version of 1.0 (header or query parameter). A v1.0 request
// without one is a v0.3 request by the spec's rule (§1.6), which a strict
// agent refuses.
func AssertSentVersionHeader(t assert.TestingT, journal []server.Entry, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	var bad []string
	n := 0
	for _, e := range journal {
		// The requests of a dialect that may not omit the header (v1.0)
		// must name that dialect in it.
		if d := wire.Describe(e.Dialect); e.Kind != server.EntryRequest || d.Dialect == "" || d.VersionHeaderOptional {
			continue
		}
		n++
		if v, ok := wire.DialectOfVersion(e.Version); ok && v == e.Dialect {
			continue
		}
		v := "none"
		if e.Version != "" {
			v = fmt.Sprintf("%q", e.Version)
		}
		id := e.TaskID
		if id == "" {
			id = e.RefTaskID
		}
		bad = append(bad, fmt.Sprintf("\n\t\t%s over %s (entry %d, task %q): A2A-Version %s", e.Method, e.Binding, e.Seq, id, v))
	}
	if len(bad) == 0 {
		return true
	}
	return assert.Fail(t, failure(fmt.Sprintf("%d of %d v1.0 request(s) without A2A-Version: 1.0", len(bad), n),
		fmt.Sprintf("sent %d v1.0 requests", n), "every v1.0 request carries A2A-Version: 1.0 (spec §1.6)", strings.Join(bad, ""), ""), msgAndArgs...)
}

// AssertNoPageTokenLoop asserts that the client never sent a listing
// (ListTasks, or ListTaskPushNotificationConfigs) the same pageToken again
// after the agent had answered that very token with it as nextPageToken: a
// listing that does not advance (see the behavior list-pagination-loop)
// must end, not be followed for ever.
func AssertNoPageTokenLoop(t assert.TestingT, journal []server.Entry, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	sent := map[int64]server.Entry{}
	// looped holds the tokens an answer repeated back, by agent and listing.
	looped := map[string]int64{}
	var msgs []string
	reported := map[string]bool{}
	for _, e := range journal {
		listing, ok := listings[e.Op]
		if !ok {
			continue
		}
		key := e.Agent + "\x00" + string(e.Op) + "\x00" + e.PageToken
		switch e.Kind {
		case server.EntryRequest:
			sent[e.Request] = e
			if at, ok := looped[key]; ok && e.PageToken != "" && !reported[key] {
				reported[key] = true
				msgs = append(msgs, failure(fmt.Sprintf("agent %s: %s followed a nextPageToken that repeated", e.Agent, listing),
					fmt.Sprintf("sent pageToken %q again (entry %d)", e.PageToken, e.Seq),
					"a client stops (or reports the agent) when nextPageToken repeats the pageToken it sent",
					fmt.Sprintf("the answer at entry %d gave back pageToken %q as its nextPageToken", at, e.PageToken), ""))
			}
		case server.EntryResponse:
			req, ok := sent[e.Request]
			if ok && e.PageToken != "" && e.PageToken == req.PageToken {
				if _, seen := looped[key]; !seen {
					looped[key] = e.Seq
				}
			}
		}
	}
	if len(msgs) == 0 {
		return true
	}
	return assert.Fail(t, strings.Join(msgs, "\n"), msgAndArgs...)
}

// listings names the paged operations whose tokens the journal keeps, as
// AssertNoPageTokenLoop's messages call them.
var listings = map[wire.Op]string{wire.OpListTasks: "ListTasks", wire.OpListPushConfigs: "ListTaskPushNotificationConfigs"}

// AssertRetryReusedMessageID asserts that when the client resent a
// message after its first sending failed, it reused the messageId, so the
// agent can recognise the retry instead of acting twice (A2A#928, #1893,
// #1987). A sending failed when the agent answered it with an error, never
// answered it, or a behavior that breaks the answer acted on it (see
// answerBreakers). The resent message is the client's next send with the same text
// (the journal keeps a digest of it) to the same task or context.
func AssertRetryReusedMessageID(t assert.TestingT, journal []server.Entry, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	failed := map[int64]bool{}
	for _, e := range journal {
		switch {
		case isSend(e):
			failed[e.Request] = true // until an answer says otherwise
		case e.Kind == server.EntryResponse && e.ErrorCode == 0:
			if _, ok := failed[e.Request]; ok {
				failed[e.Request] = false
			}
		}
	}
	for _, e := range journal {
		if isSend(e) && slices.ContainsFunc(e.Behaviors, breaksAnswer) {
			failed[e.Request] = true
		}
	}
	last := map[string]server.Entry{}
	var msgs []string
	for _, e := range journal {
		if !isSend(e) || e.MessageDigest == "" {
			continue
		}
		key := e.Agent + "\x00" + e.RefTaskID + "\x00" + e.ContextID + "\x00" + e.MessageDigest
		prev, ok := last[key]
		last[key] = e
		if !ok || !failed[prev.Request] || prev.MessageID == e.MessageID {
			continue
		}
		subject := fmt.Sprintf("agent %s: a failed message was resent with a new messageId", e.Agent)
		if e.RefTaskID != "" {
			subject = fmt.Sprintf("task %q: a failed message to it was resent with a new messageId", e.RefTaskID)
		}
		why := "failed"
		if bs := slices.DeleteFunc(slices.Clone(prev.Behaviors), func(b string) bool { return !breaksAnswer(b) }); len(bs) > 0 {
			why = "failed (" + strings.Join(bs, ", ") + ")"
		}
		msgs = append(msgs, failure(subject,
			fmt.Sprintf("%s (entry %d) %s, then %s (entry %d) with the same text", prev.Method, prev.Seq, why, e.Method, e.Seq),
			"a retry reuses the messageId "+prev.MessageID, "messageId "+e.MessageID, ""))
	}
	if len(msgs) == 0 {
		return true
	}
	return assert.Fail(t, strings.Join(msgs, "\n"), msgAndArgs...)
}

// answerBreakers are the behaviors after which a client has no usable
// answer to its send, and may retry.
var answerBreakers = []string{"http-error", "connection-reset", "empty-response", "malformed-json", "truncated-body",
	"stream-eof-mid-frame", "stream-error-as-json", "stream-hang", "send-result-envelope", "auth-flaky", "content-type", "sse-framing"}

func breaksAnswer(behavior string) bool {
	name, _, _ := strings.Cut(behavior, ":")
	return slices.Contains(answerBreakers, name)
}

// AssertCardRefetchedOnChange asserts that after the agent's card changed
// (at journal sequence number changedAt: take the last entry's Seq when the
// test changes the card) the client fetched the card again before its next
// A2A request to that agent. The mock serves cards with an ETag and
// Cache-Control: no-cache, so a client that honours HTTP caching
// revalidates; one that caches the card for the process's lifetime keeps
// using what the card no longer says.
func AssertCardRefetchedOnChange(t assert.TestingT, journal []server.Entry, agent string, changedAt int64, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	for _, e := range journal {
		if e.Seq <= changedAt || e.Agent != agent {
			continue
		}
		switch e.Kind {
		case server.EntryCard:
			return true
		case server.EntryRequest:
			id := e.TaskID
			if id == "" {
				id = e.RefTaskID
			}
			return assert.Fail(t, failure(fmt.Sprintf("agent %s: card changed but not fetched again", agent),
				fmt.Sprintf("%s over %s (entry %d, task %q)", e.Method, e.Binding, e.Seq, id),
				fmt.Sprintf("the card changed at entry %d (ETag changed, Cache-Control: no-cache): refetch it before using the agent", changedAt),
				"no card fetch between the change and this request", ""), msgAndArgs...)
		}
	}
	return true
}
