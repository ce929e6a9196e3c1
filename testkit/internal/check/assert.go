// Package check implements testkit's assertions; package testkit exports
// them (testkit.AssertNoOrphans and the rest), with their documentation.
package check

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// The assertions below follow testify's style: they take a t, report a
// failure through assert.Fail and return whether they passed. A failure
// message names the task, says what the client did, what was declared
// (by the card, or by the rule the assertion checks) and what was
// observed, with a diff where there are two sequences to compare.
//
// Client-side assertions read a *reconcile.Ledger. Server-side assertions
// read the mock's journal as []server.Entry, so they work the same on
// Mock.Journal() and on a journal fetched over HTTP with FetchJournal from
// a mock driven by a client in any language.

// tHelper is a test that can mark its helpers. Every function on the way
// to assert.Fail calls Helper itself: Helper marks its own caller, so a
// shared function calling it would mark only itself.
type tHelper interface{ Helper() }

// failure builds the common message layout.
func failure(subject, did, declared, observed, diff string) string {
	var b strings.Builder
	b.WriteString(subject)
	b.WriteString("\n\tclient did: " + did)
	b.WriteString("\n\tdeclared:   " + declared)
	b.WriteString("\n\tobserved:   " + observed)
	if diff != "" {
		b.WriteString("\n\tdiff (-declared +observed):\n" + diff)
	}
	return b.String()
}

// diffSeq compares two sequences position by position.
func diffSeq[T ~string](declared, observed []T) string {
	var b strings.Builder
	for i := range max(len(declared), len(observed)) {
		var d, o string
		if i < len(declared) {
			d = string(declared[i])
		}
		if i < len(observed) {
			o = string(observed[i])
		}
		switch {
		case i < len(declared) && i < len(observed) && d == o:
			fmt.Fprintf(&b, "\t\t  %d %s\n", i, d)
		default:
			if i < len(declared) {
				fmt.Fprintf(&b, "\t\t- %d %s\n", i, d)
			}
			if i < len(observed) {
				fmt.Fprintf(&b, "\t\t+ %d %s\n", i, o)
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func stateList(s []wire.TaskState) string {
	if len(s) == 0 {
		return "no state"
	}
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = string(x)
	}
	return strings.Join(parts, " → ")
}

// channels summarises what a client did for a ledger task: the channels its
// observations came from, with counts.
func channels(t *reconcile.ObservedTask) string {
	var order []reconcile.Source
	n := map[reconcile.Source]int{}
	for _, o := range t.Raw {
		if n[o.Source] == 0 {
			order = append(order, o.Source)
		}
		n[o.Source]++
	}
	if len(order) == 0 {
		return "observed nothing"
	}
	parts := make([]string, len(order))
	for i, s := range order {
		parts[i] = fmt.Sprintf("%s ×%d", s, n[s])
	}
	return "observed via " + strings.Join(parts, ", ")
}

func describeTask(t *reconcile.ObservedTask) string {
	s := fmt.Sprintf("states %s (outcome %s, last from %s)", stateList(t.States), t.Outcome, t.LastSource())
	if len(t.TaskIDs) > 1 {
		s += fmt.Sprintf(", task ids %v", t.TaskIDs)
	}
	if t.Divergence != nil {
		s += "; " + t.Divergence.Error()
	}
	return s
}

// AssertLifecycle asserts that the ledger saw exactly the expected sequence
// of distinct states for the task under taskKey (a task id, or a
// correlation id behind a gateway).
func AssertLifecycle(t assert.TestingT, ledger *reconcile.Ledger, taskKey string, expected ...wire.TaskState) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if ledger == nil {
		return assert.Fail(t, fmt.Sprintf("task %q: no ledger to check its lifecycle against", taskKey))
	}
	task, ok := ledger.Task(taskKey)
	if !ok {
		return assert.Fail(t, failure(fmt.Sprintf("task %q: never observed", taskKey), "observed nothing for it",
			"lifecycle "+stateList(expected), "no observation under this key", ""))
	}
	if slices.Equal(task.States, expected) {
		return true
	}
	return assert.Fail(t, failure(fmt.Sprintf("task %q: lifecycle differs", task.TaskID()), channels(task),
		"lifecycle "+stateList(expected), describeTask(task), diffSeq(expected, task.States)))
}

// AssertNoUnreconciled asserts that no task of the ledger is left neither
// terminal nor diverged: nothing the client would orphan if it stopped now.
func AssertNoUnreconciled(t assert.TestingT, ledger *reconcile.Ledger, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if ledger == nil {
		return assert.Fail(t, "no ledger to check", msgAndArgs...)
	}
	open := ledger.Unreconciled()
	if len(open) == 0 {
		return true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d task(s) left unreconciled (neither terminal nor diverged):", len(open))
	for _, task := range open {
		b.WriteString("\n")
		b.WriteString(failure(fmt.Sprintf("task %q", task.TaskID()), channels(task),
			"every task ends terminal, canceled or diverged", describeTask(task), ""))
	}
	return assert.Fail(t, b.String(), msgAndArgs...)
}

// AssertDiverged asserts that a divergence of the given kind was surfaced.
// subject is a *reconcile.Ledger (some task has the outcome diverged with
// that kind), a *reconcile.Result (its ledger), or an error (it wraps a
// *reconcile.DivergenceError of that kind).
func AssertDiverged(t assert.TestingT, subject any, kind reconcile.Kind, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	declared := fmt.Sprintf("a divergence of kind %s surfaced", kind)
	switch s := subject.(type) {
	case *reconcile.Result:
		if s == nil || s.Ledger == nil {
			return assert.Fail(t, failure("no task: the result has no ledger", "-", declared, "nothing to check", ""), msgAndArgs...)
		}
		return AssertDiverged(t, s.Ledger, kind, msgAndArgs...)
	case *reconcile.Ledger:
		if s == nil {
			return assert.Fail(t, failure("no task: the ledger is nil", "-", declared, "nothing to check", ""), msgAndArgs...)
		}
		var seen []string
		for _, task := range s.Tasks() {
			if task.Outcome == reconcile.OutcomeDiverged && task.Divergence != nil && task.Divergence.Kind == kind {
				return true
			}
			seen = append(seen, fmt.Sprintf("\n\t\ttask %q: %s", task.TaskID(), describeTask(task)))
		}
		if len(seen) == 0 {
			seen = append(seen, " no task in the ledger")
		}
		return assert.Fail(t, failure("no task of the ledger diverged with kind "+string(kind),
			fmt.Sprintf("recorded %d task(s)", len(s.Tasks())), declared, strings.Join(seen, ""), ""), msgAndArgs...)
	case error:
		var d *reconcile.DivergenceError
		if errors.As(s, &d) {
			if d.Kind == kind {
				return true
			}
			return assert.Fail(t, failure(fmt.Sprintf("task %q: divergence of another kind", d.TaskID), "surfaced "+d.Error(),
				declared, "kind "+string(d.Kind), diffSeq([]reconcile.Kind{kind}, []reconcile.Kind{d.Kind})), msgAndArgs...)
		}
		return assert.Fail(t, failure("no task: the error is not a divergence", "returned "+s.Error(), declared, fmt.Sprintf("%T", s), ""), msgAndArgs...)
	case nil:
		return assert.Fail(t, failure("no task: no error", "returned nil", declared, "no divergence at all", ""), msgAndArgs...)
	}
	return assert.Fail(t, fmt.Sprintf("AssertDiverged: cannot read a divergence from %T (want a ledger, a result or an error)", subject), msgAndArgs...)
}

// story is what the journal says about one task.
type story struct {
	agent, id string
	first     server.Entry // the first entry naming the task
	created   string       // the method of the request that created it
	states    []wire.TaskState
	// requests by the client about the task: GetTask, CancelTask (TaskID)
	// and messages naming it (RefTaskID).
	requests []server.Entry
	polls    []server.Entry
	cancels  []server.Entry
	// cancelAcked: a CancelTask for the task was answered without error.
	cancelAcked bool
	// cancelErr is the error code of a refused cancel.
	cancelErr int
	// dead is the entry from which the task can no longer be continued,
	// and why.
	dead       *server.Entry
	deadReason string
}

func (s *story) last() wire.TaskState {
	if len(s.states) == 0 {
		return wire.StateUnspecified
	}
	return s.states[len(s.states)-1]
}

func (s *story) markDead(e server.Entry, why string) {
	if s.dead == nil {
		c := e
		s.dead, s.deadReason = &c, why
	}
}

// did says what the client did about the task, in words.
func (s *story) did() string {
	var order []string
	n := map[string]int{}
	add := func(k string) {
		if n[k] == 0 {
			order = append(order, k)
		}
		n[k]++
	}
	if s.created != "" {
		add("created it with " + s.created)
	}
	for _, r := range s.requests {
		m := r.Method
		if m == "" {
			m = string(r.Op)
		}
		if r.RefTaskID == s.id && (r.Op == wire.OpSend || r.Op == wire.OpStream) {
			m += " (continuation)"
		}
		add(m)
	}
	if len(order) == 0 {
		return "nothing about this task"
	}
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = fmt.Sprintf("%s ×%d", k, n[k])
	}
	return strings.Join(parts, ", ")
}

func (s *story) subject(what string) string {
	return fmt.Sprintf("task %q (agent %s): %s", s.id, s.agent, what)
}

// stories reads every task of the journal, in the order first seen.
func stories(journal []server.Entry) (map[string]*story, []string) {
	byID := map[string]*story{}
	var order []string
	get := func(e server.Entry, id string) *story {
		s, ok := byID[id]
		if !ok {
			s = &story{agent: e.Agent, id: id, first: e}
			byID[id] = s
			order = append(order, id)
		}
		return s
	}
	requests := map[int64]server.Entry{}
	for _, e := range journal {
		switch e.Kind {
		case server.EntryRequest:
			requests[e.Request] = e
			if e.TaskID != "" {
				s := get(e, e.TaskID)
				s.requests = append(s.requests, e)
				switch e.Op {
				case wire.OpGetTask:
					s.polls = append(s.polls, e)
				case wire.OpCancelTask:
					s.cancels = append(s.cancels, e)
					s.markDead(e, fmt.Sprintf("the client canceled it (entry %d)", e.Seq))
				}
			}
			if e.RefTaskID != "" && e.RefTaskID != e.TaskID {
				s := get(e, e.RefTaskID)
				s.requests = append(s.requests, e)
			}
		case server.EntryResponse:
			if e.TaskID != "" && (e.Op == wire.OpSend || e.Op == wire.OpStream) && e.RefTaskID != e.TaskID {
				s := get(e, e.TaskID)
				if s.created == "" {
					s.created = requests[e.Request].Method
					if s.created == "" {
						s.created = string(e.Op)
					}
				}
			}
			if e.RefTaskID != "" && e.TaskID != "" && e.TaskID != e.RefTaskID && e.ErrorCode == 0 {
				get(e, e.RefTaskID).markDead(e, fmt.Sprintf("a message to it was answered with another task, %q (entry %d)", e.TaskID, e.Seq))
			}
			if e.Op == wire.OpCancelTask && e.TaskID != "" {
				s := get(e, e.TaskID)
				if e.ErrorCode == 0 {
					s.cancelAcked = true
				} else {
					s.cancelErr = e.ErrorCode
				}
			}
			if e.ErrorCode == wire.CodeTaskNotFound {
				id := e.TaskID
				if id == "" {
					id = e.RefTaskID
				}
				if id != "" {
					get(e, id).markDead(e, fmt.Sprintf("the agent no longer knew it (TaskNotFound, entry %d)", e.Seq))
				}
			}
		case server.EntryEvent:
			if e.TaskID == "" || e.State == wire.StateUnspecified {
				continue
			}
			s := get(e, e.TaskID)
			if s.last() != e.State {
				s.states = append(s.states, e.State)
			}
			if e.State.Terminal() {
				s.markDead(e, fmt.Sprintf("it reached %s (entry %d)", e.State, e.Seq))
			}
		}
	}
	return byID, order
}

// AssertNoOrphans asserts that every task the client created ended in a
// terminal state, or was canceled by the client (a CancelTask the agent
// acknowledged, even if a misbehaving agent then kept the task running).
// A task left working, submitted or waiting for input is an orphan.
func AssertNoOrphans(t assert.TestingT, journal []server.Entry, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	byID, order := stories(journal)
	var msgs []string
	for _, id := range order {
		s := byID[id]
		if len(s.states) == 0 && s.created == "" {
			continue // named by a request only: not a task the agent created
		}
		if s.last().Terminal() || s.cancelAcked {
			continue
		}
		obs := "last state " + string(s.last()) + " (" + stateList(s.states) + "), "
		switch {
		case len(s.cancels) == 0:
			obs += "never canceled"
		default:
			obs += fmt.Sprintf("cancel refused with error %d", s.cancelErr)
		}
		msgs = append(msgs, failure(s.subject("orphaned"), s.did(),
			"every task the client creates ends terminal or is canceled by the client", obs, ""))
	}
	if len(msgs) == 0 {
		return true
	}
	return assert.Fail(t, fmt.Sprintf("%d orphaned task(s):\n%s", len(msgs), strings.Join(msgs, "\n")), msgAndArgs...)
}

// AssertPolledAtMost asserts that the client sent at most n GetTask
// requests for the task.
func AssertPolledAtMost(t assert.TestingT, journal []server.Entry, taskID string, n int, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	byID, _ := stories(journal)
	s := byID[taskID]
	if s == nil || len(s.polls) <= n {
		return true
	}
	return assert.Fail(t, failure(s.subject(fmt.Sprintf("polled %d times, more than %d", len(s.polls), n)), s.did(),
		fmt.Sprintf("at most %d GetTask polls", n),
		fmt.Sprintf("%d GetTask polls from %s to %s; task states %s", len(s.polls),
			s.polls[0].Time.Format(time.RFC3339Nano), s.polls[len(s.polls)-1].Time.Format(time.RFC3339Nano), stateList(s.states)), ""), msgAndArgs...)
}

// AssertStoppedPollingWithin asserts that the client's last GetTask for
// the task came at most d after the task's first journal entry (its
// creation): a client that bounds its waits stops polling by then.
func AssertStoppedPollingWithin(t assert.TestingT, journal []server.Entry, taskID string, d time.Duration, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	byID, _ := stories(journal)
	s := byID[taskID]
	if s == nil || len(s.polls) == 0 {
		return true
	}
	lastPoll := s.polls[len(s.polls)-1]
	span := lastPoll.Time.Sub(s.first.Time)
	if span <= d {
		return true
	}
	return assert.Fail(t, failure(s.subject(fmt.Sprintf("still polled %s after creation, beyond %s", span, d)), s.did(),
		fmt.Sprintf("no GetTask later than %s after the task was created", d),
		fmt.Sprintf("last GetTask (entry %d) %s after creation; task states %s", lastPoll.Seq, span, stateList(s.states)), ""), msgAndArgs...)
}

// AssertCanceled asserts that the client canceled the task: it sent a
// CancelTask for it that the agent acknowledged.
func AssertCanceled(t assert.TestingT, journal []server.Entry, taskID string, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	byID, _ := stories(journal)
	s := byID[taskID]
	if s == nil {
		return assert.Fail(t, failure(fmt.Sprintf("task %q: not in the journal", taskID), "nothing about this task",
			"the client cancels the task", "no entry names the task", ""), msgAndArgs...)
	}
	if s.cancelAcked {
		return true
	}
	obs := "no CancelTask for it"
	if len(s.cancels) > 0 {
		obs = fmt.Sprintf("%d CancelTask, refused with error %d", len(s.cancels), s.cancelErr)
	}
	return assert.Fail(t, failure(s.subject("not canceled by the client"), s.did(),
		"the client cancels the task (CancelTask acknowledged)", obs+"; task states "+stateList(s.states), ""), msgAndArgs...)
}

// AssertNoContinuationTo asserts that the client sent no message naming
// the task (a continuation: SendMessage or SendStreamingMessage with its
// taskId) after the task was dead. A task is dead from the first journal
// entry that shows one of: a terminal state of the task; a CancelTask for
// it from the client; an answer to a message naming it that carried a
// different task id (the agent spawned a new task instead of continuing,
// so the id continues nothing); a TaskNotFound answer for it.
func AssertNoContinuationTo(t assert.TestingT, journal []server.Entry, taskID string, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	byID, _ := stories(journal)
	s := byID[taskID]
	if s == nil || s.dead == nil {
		return true
	}
	var late []string
	for _, r := range s.requests {
		if r.Seq > s.dead.Seq && r.RefTaskID == taskID && (r.Op == wire.OpSend || r.Op == wire.OpStream) {
			late = append(late, fmt.Sprintf("%s (entry %d, message %s)", r.Method, r.Seq, r.MessageID))
		}
	}
	if len(late) == 0 {
		return true
	}
	return assert.Fail(t, failure(s.subject(fmt.Sprintf("%d continuation(s) sent to a dead task", len(late))), s.did(),
		"no message to a task after it is dead; it died when "+s.deadReason,
		"continuations "+strings.Join(late, ", "), ""), msgAndArgs...)
}

// AssertUsedDeclaredInterface asserts that every A2A request in the
// journal used a binding and protocol version (dialect) the card declares,
// and, when the card gives interface URLs, a path under one of them. Pass
// the card as the client read it (e.g. from DiscoverClient): the declared
// card of Mock.Server().Card has no interfaces, and then the mock's
// defaults are assumed (JSON-RPC in the card's dialect, plus HTTP+JSON for
// 1.0). Filter the journal with JournalFor when the mock hosts several
// agents. A journal without requests fails: there is nothing to confirm.
func AssertUsedDeclaredInterface(t assert.TestingT, journal []server.Entry, card *cards.Card, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if card == nil {
		return assert.Fail(t, "AssertUsedDeclaredInterface: no card", msgAndArgs...)
	}
	ifaces := card.Interfaces
	if len(ifaces) == 0 {
		d := card.Dialect
		if d == "" {
			d = wire.Newest()
		}
		desc := wire.Describe(d)
		for _, b := range desc.Bindings {
			ifaces = append(ifaces, cards.Interface{Binding: b, Version: d})
		}
		if desc.GRPC && desc.Tenant {
			// A mock that serves gRPC declares it in every card of this
			// dialect; one that does not journals no gRPC call. A dialect
			// without tenants (v0.3) declares it in the card of the one
			// agent its calls reach, which a card without interfaces
			// cannot tell: it does not stand for gRPC.
			ifaces = append(ifaces, cards.Interface{Binding: wire.BindingGRPC, Version: d})
		}
	}
	declared := make([]string, len(ifaces))
	for i, in := range ifaces {
		declared[i] = fmt.Sprintf("%s %s", in.Binding, in.Version)
		if in.Binding == wire.BindingGRPC && in.URL == "" {
			declared[i] += " (when the mock serves gRPC)"
		}
		if p := ifacePath(in.URL); p != "" {
			declared[i] += " at " + p
		}
	}
	var bad []string
	n := 0
	for _, e := range journal {
		if e.Kind != server.EntryRequest {
			continue
		}
		n++
		if !slices.ContainsFunc(ifaces, func(in cards.Interface) bool { return matchesIface(in, e) }) {
			id := e.TaskID
			if id == "" {
				id = e.RefTaskID
			}
			method, iface := e.Method, strings.TrimSpace(string(e.Binding)+" "+string(e.Dialect))
			if method == "" {
				method = "a request" // refused before its method was understood
			}
			if iface == "" {
				iface = "no interface" // a path no route serves
			}
			bad = append(bad, fmt.Sprintf("\n\t\t%s over %s at %s (entry %d, task %q)", method, iface, e.Path, e.Seq, id))
		}
	}
	name := card.Name
	if n == 0 {
		return assert.Fail(t, failure(fmt.Sprintf("agent %s: no task, no request in the journal", name), "sent no A2A request",
			strings.Join(declared, "; "), "nothing to compare", ""), msgAndArgs...)
	}
	if len(bad) == 0 {
		return true
	}
	return assert.Fail(t, failure(fmt.Sprintf("agent %s: %d of %d request(s) used an interface the card does not declare", name, len(bad), n),
		fmt.Sprintf("sent %d A2A requests", n), strings.Join(declared, "; "), strings.Join(bad, ""), ""), msgAndArgs...)
}

func ifacePath(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	p := u.Path
	if p == "" {
		p = "/"
	}
	return p
}

func matchesIface(in cards.Interface, e server.Entry) bool {
	// A request refused before its method was understood (a body that is
	// not JSON, an unknown method) has no dialect: its binding and path
	// say which interface it was sent to.
	if in.Binding != e.Binding || e.Dialect != "" && in.Version != e.Dialect {
		return false
	}
	if in.Binding == wire.BindingGRPC {
		return true // host:port, no path to compare
	}
	p := ifacePath(in.URL)
	if p == "" || e.Path == "" {
		return true
	}
	trim := strings.TrimRight(p, "/")
	return e.Path == p || e.Path == trim || strings.HasPrefix(e.Path, trim+"/")
}
