package judge

import (
	"bytes"
	"encoding/json"
	"slices"
	"time"

	"github.com/a2amock/a2amock/conform/clientrun"
	"github.com/a2amock/a2amock/internal/a2apb"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// Run is everything the checks judge about one scenario run: the journal
// (what the agent saw and did), the wire records (what the client sent, as
// HTTP), the process and what the scenario expects. Analyse must run once
// before the checks judge it.
type Run struct {
	// Agents names the scenario's agents in order; Deadline, MaxPolls and
	// Outcomes are what it allows and expects of the client.
	Agents   []string
	Deadline time.Duration
	MaxPolls int
	Outcomes []string

	// Journal is the agents' journal up to the client's exit: what the
	// client lived to see, what the checks judge and the report shows.
	// AfterExit is the rest, journaled until the mock was shut down: the
	// agents going on without the client, as much of it as the shutdown
	// let happen, which varies from one run to the next. Only
	// recovers-after-stream-loss reads it, to learn that a stream was still
	// open when the client exited.
	Journal   []server.Entry
	AfterExit []server.Entry
	// Wire is the client's HTTP exchanges up to its exit, cut there as
	// the journal is: one still under way then is recorded as it stood
	// (Open), and none begun later is.
	Wire []WireRecord
	Proc *clientrun.Process
	// Exit is when the client exited (or was killed); states the agent
	// reached later do not count for it.
	Exit time.Time
	// Declared holds each agent's card as served, with its interfaces.
	Declared map[string]*cards.Card
	Origin   string
	// SignsCards is set when the server signs every card.
	SignsCards bool

	tasks []*taskFacts
}

// taskFacts is what the journal says about one task the client started.
type taskFacts struct {
	ID, ContextID, Agent string
	// started is the response entry that first named the task.
	started server.Entry
	// events are the agent's status events for the task, in order.
	events []server.Entry
	// cancels, polls, subscribes and messages are the client's requests
	// naming the task.
	cancels, polls, subscribes, messages []server.Entry
	// hidden is set when the client cannot have learned the task's id: the
	// answer that created it was cut or reset (or still under way at the
	// client's exit) before a whole event naming it was delivered, or
	// arrived whole as JSON no parser reads, and the client never named
	// it. via is that answer.
	hidden bool
	via    WireRecord
}

// lastState returns the task's last state emitted by the agent at or before
// t (zero t: ever), with its entry. A terminal state is final: states the
// agent emitted after one (transition-after-terminal) are its own breach of
// the contract and do not reopen the task for the client.
func (tf *taskFacts) lastState(t time.Time) (wire.TaskState, server.Entry) {
	var st wire.TaskState
	var at server.Entry
	for _, e := range tf.events {
		if !t.IsZero() && e.Time.After(t) || st.Terminal() {
			break
		}
		st, at = e.State, e
	}
	return st, at
}

// canceledBefore reports whether the client sent CancelTask for the task at
// or before t.
func (tf *taskFacts) canceledBefore(t time.Time) (server.Entry, bool) {
	for _, e := range tf.cancels {
		if !e.Time.After(t) {
			return e, true
		}
	}
	return server.Entry{}, false
}

// analyse derives the client's tasks from the journal: every task an
// answer to the client's send or stream named.
// Analyse gathers the facts the checks read: the tasks the client
// started and what the journal says about each.
func (r *Run) Analyse() {
	byID := map[string]*taskFacts{}
	for _, e := range r.Journal {
		if e.Kind == server.EntryResponse && (e.Op == wire.OpSend || e.Op == wire.OpStream) && e.TaskID != "" && e.ErrorCode == 0 {
			if _, ok := byID[e.TaskID]; !ok {
				tf := &taskFacts{ID: e.TaskID, ContextID: e.ContextID, Agent: e.Agent, started: e}
				byID[e.TaskID] = tf
				r.tasks = append(r.tasks, tf)
			}
		}
	}
	for _, e := range r.Journal {
		tf, ok := byID[e.TaskID]
		if !ok && e.Kind == server.EntryRequest && e.RefTaskID != "" {
			tf, ok = byID[e.RefTaskID]
		}
		if !ok {
			continue
		}
		switch {
		case e.Kind == server.EntryEvent && e.State != "":
			tf.events = append(tf.events, e)
			if tf.ContextID == "" {
				tf.ContextID = e.ContextID
			}
		case e.Kind == server.EntryRequest && e.Op == wire.OpCancelTask:
			tf.cancels = append(tf.cancels, e)
		case e.Kind == server.EntryRequest && e.Op == wire.OpGetTask:
			tf.polls = append(tf.polls, e)
		case e.Kind == server.EntryRequest && e.Op == wire.OpSubscribe:
			tf.subscribes = append(tf.subscribes, e)
		case e.Kind == server.EntryRequest && (e.Op == wire.OpSend || e.Op == wire.OpStream) && e.RefTaskID == tf.ID:
			tf.messages = append(tf.messages, e)
		}
	}
	for _, tf := range r.tasks {
		r.hide(tf)
	}
	// A context id the agent first answered with is the task's; a
	// response may have named none (a stream's start).
	for _, tf := range r.tasks {
		if tf.ContextID == "" {
			for _, e := range r.Journal {
				if e.TaskID == tf.ID && e.ContextID != "" {
					tf.ContextID = e.ContextID
					break
				}
			}
		}
	}
}

// hide marks a task whose id never reached the client (see taskFacts).
func (r *Run) hide(tf *taskFacts) {
	if len(tf.cancels)+len(tf.polls)+len(tf.subscribes)+len(tf.messages) > 0 {
		return
	}
	for _, w := range r.Wire {
		if w.Agent != tf.Agent || !w.isA2A() || tf.started.Time.Before(w.Start) || tf.started.Time.After(w.End) {
			continue
		}
		// An answer still open at the client's exit was cut there.
		if !w.Faulted && !w.Open {
			if Unreadable(w.Delivered) {
				tf.hidden, tf.via = true, w
			}
			return
		}
		named := namedInWholeEvent
		if w.GRPC {
			named = namedInWholeMessage
		}
		if !named(w.Delivered, tf.ID) {
			tf.hidden, tf.via = true, w
		}
		return
	}
}

// MaxDelivered bounds the body a WireRecord keeps (Delivered).
const MaxDelivered = 16 << 10

// Unreadable reports whether a whole answer body is JSON no parser reads
// (malformed-json on a unary answer): a client cannot learn the id in it. A
// stream's body starts with an SSE field, a gRPC one with a length prefix.
func Unreadable(body []byte) bool {
	b := bytes.TrimSpace(body)
	return len(body) < MaxDelivered && len(b) > 0 && b[0] == '{' && !json.Valid(b)
}

// namedInWholeEvent reports whether the delivered bytes hold the id inside a
// complete server-sent event (one ended by a blank line); a unary body that
// was cut is never whole.
func namedInWholeEvent(b []byte, id string) bool {
	i := bytes.Index(b, []byte(id))
	if i < 0 {
		return false
	}
	rest := b[i:]
	return bytes.Contains(rest, []byte("\n\n")) || bytes.Contains(rest, []byte("\r\n\r\n"))
}

// namedInWholeMessage reports whether the delivered bytes of a gRPC answer
// hold the id inside a complete length-prefixed message.
func namedInWholeMessage(b []byte, id string) bool {
	for {
		_, msg, rest, ok := a2apb.NextMessage(b)
		if !ok {
			return false
		}
		if bytes.Contains(msg, []byte(id)) {
			return true
		}
		b = rest
	}
}

// task returns the client task with the given id.
func (r *Run) task(id string) *taskFacts {
	for _, tf := range r.tasks {
		if tf.ID == id {
			return tf
		}
	}
	return nil
}

func isSend(e server.Entry) bool {
	return e.Kind == server.EntryRequest && (e.Op == wire.OpSend || e.Op == wire.OpStream)
}

// agentsCalled lists the agents the client made A2A calls to, in order of
// first call.
func (r *Run) agentsCalled() []string {
	var out []string
	for _, w := range r.Wire {
		if w.isA2A() && !slices.Contains(out, w.Agent) {
			out = append(out, w.Agent)
		}
	}
	return out
}
