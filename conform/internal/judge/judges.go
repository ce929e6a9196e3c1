package judge

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/conform/clientrun"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

func judgeExitsInTime(r *Run) Verdict {
	p := r.Proc
	switch {
	case p.StartError != "":
		return fail(Evidence{}, "%s", p.StartError)
	case p.Killed:
		return fail(Evidence{}, "hang: the client was still running at the deadline (%s) plus the grace period, %s; the runner killed it and everything it started after %dms", r.Deadline, startupText(p), p.DurationMS)
	case p.Strays > 0:
		return fail(Evidence{}, "the client exited after %dms but left %d process(es) running (in its process group, or carrying its %s marker after leaving it); the runner killed them", p.DurationMS, p.Strays, clientrun.MarkerVar)
	}
	return pass(fmt.Sprintf("exited after %dms (deadline %s, %s)", p.DurationMS, r.Deadline, startupText(p)), Evidence{})
}

// startupText says from when the deadline was counted.
func startupText(p *clientrun.Process) string {
	switch {
	case p.ReadyInTime:
		return fmt.Sprintf("counted from its first request, %dms after its start", p.StartupMS)
	case p.NoRequest:
		return fmt.Sprintf("counted from %dms after its start (it made no request to the agent)", p.StartupMS)
	}
	return fmt.Sprintf("counted from the end of the start-up allowance, %dms after its start (it made no request to the agent before)", p.StartupMS)
}

func judgeNoCrash(r *Run) Verdict {
	p := r.Proc
	switch {
	case p.StartError != "":
		return fail(Evidence{}, "crash: %s", p.StartError)
	case p.Killed:
		return fail(Evidence{}, "hang: killed at the deadline plus the grace period; %s", outcomeSummary(p))
	case p.Signal != "":
		return fail(Evidence{}, "crash: the client died of signal %s; stderr: %s", p.Signal, stderrGist(p.Stderr))
	case p.ExitCode != 0:
		return fail(Evidence{}, "crash: the client exited %d; stderr: %s", p.ExitCode, stderrGist(p.Stderr))
	case p.OutcomeProblem != "":
		return fail(Evidence{}, "crash: %s (stdout was %d bytes)", p.OutcomeProblem, p.StdoutBytes)
	}
	return pass(fmt.Sprintf("exit 0, outcome %q", p.Outcome.Outcome), Evidence{})
}

func outcomeSummary(p *clientrun.Process) string {
	if p.Outcome != nil {
		return fmt.Sprintf("it had printed outcome %q", p.Outcome.Outcome)
	}
	return "no outcome line"
}

// errorLine matches a line of stderr that says what went wrong: Python's
// and Node's "SomeError: …", Go's "panic: …", Java's "Exception in thread
// …", "fatal: …".
var errorLine = regexp.MustCompile(`^\s*(?:[\w.$]*(?:Error|Exception)\b|panic:|fatal\b|FATAL\b|Exception in thread)`)

// footer matches what a runtime prints after the error itself: Node ends
// an uncaught error with its version, go run with the exit status.
var footer = regexp.MustCompile(`^(?:Node\.js v[\d.]+|exit status \d+)$`)

// stderrGist is the line of stderr a one-line reason should quote: the last
// one that reads like an error, else the last line that is not a runtime's
// footer.
func stderrGist(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for len(lines) > 1 && footer.MatchString(strings.TrimSpace(lines[len(lines)-1])) {
		lines = lines[:len(lines)-1]
	}
	gist := strings.TrimSpace(lines[len(lines)-1])
	for i := len(lines) - 1; i >= 0; i-- {
		if errorLine.MatchString(lines[i]) {
			gist = strings.TrimSpace(lines[i])
			break
		}
	}
	if gist == "" {
		return "(empty)"
	}
	if r := []rune(gist); len(r) > 200 {
		gist = string(r[:200]) + "…"
	}
	return strconvQuote(gist)
}

func strconvQuote(s string) string { return strconv.Quote(s) }

// stateOutcomes are the outcomes that name a task state.
var stateOutcomes = map[string]wire.TaskState{
	"completed": wire.StateCompleted, "failed": wire.StateFailed, "canceled": wire.StateCanceled,
	"rejected": wire.StateRejected, "input-required": wire.StateInputRequired, "auth-required": wire.StateAuthRequired,
}

func judgeTruthfulOutcome(r *Run) Verdict {
	p := r.Proc
	var ev Evidence
	if p.Outcome == nil {
		return fail(ev, "no outcome to judge (%s)", orDefault(p.OutcomeProblem, "the client did not run"))
	}
	o := *p.Outcome
	for _, tf := range r.tasks {
		ev.entry(tf.started)
		if _, e := tf.lastState(r.Exit); e.Seq != 0 {
			ev.entry(e)
		}
	}
	if !slices.Contains(r.Outcomes, o.Outcome) {
		return fail(ev, "the client reported %q (task %q, detail %q); a truthful client reports %s here: %s",
			o.Outcome, o.TaskID, o.Detail, strings.Join(r.Outcomes, " or "), r.statesSummary())
	}
	want, names := stateOutcomes[o.Outcome]
	if !names {
		return pass(fmt.Sprintf("reported %q, which the scenario allows; %s", o.Outcome, r.statesSummary()), ev)
	}
	matches := func(tf *taskFacts) bool {
		st, _ := tf.lastState(r.Exit)
		return st == want
	}
	if o.TaskID != "" {
		tf := r.task(o.TaskID)
		if tf == nil {
			return fail(ev, "the client reported %q for task %q, which the agent never created for it; %s", o.Outcome, o.TaskID, r.statesSummary())
		}
		if !matches(tf) {
			st, _ := tf.lastState(r.Exit)
			return fail(ev, "the client reported %q for task %s, whose last state the agent gave before the client exited was %q", o.Outcome, tf.ID, orDefault(string(st), "none"))
		}
	} else if !slices.ContainsFunc(r.tasks, matches) {
		return fail(ev, "the client reported %q but no task it started was %s when it exited; %s", o.Outcome, want, r.statesSummary())
	}
	if want == wire.StateCompleted && len(r.Agents) > 1 {
		for _, agent := range r.Agents {
			if !slices.ContainsFunc(r.tasks, func(tf *taskFacts) bool { return tf.Agent == agent && matches(tf) }) {
				return fail(ev, "the client reported completed but agent %s completed no task of it; %s", agent, r.statesSummary())
			}
		}
	}
	return pass(fmt.Sprintf("reported %q, matching the agent; %s", o.Outcome, r.statesSummary()), ev)
}

// statesSummary says, per task the client started, the agent's last state
// when the client exited.
func (r *Run) statesSummary() string {
	if len(r.tasks) == 0 {
		return "the agent created no task for the client"
	}
	parts := make([]string, len(r.tasks))
	for i, tf := range r.tasks {
		st, _ := tf.lastState(r.Exit)
		parts[i] = fmt.Sprintf("%s/%s=%s", tf.Agent, tf.ID, orDefault(string(st), "none"))
	}
	// Sorted, so that a client working several agents at once gets the
	// same reason whichever it reached first (the ids come from the seed).
	slices.Sort(parts)
	return "observed (agent/task=last state at exit): " + strings.Join(parts, ", ")
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// unseen notes, in the evidence and a reason suffix, the tasks whose id
// never reached the client (the answer creating them was cut, reset, not
// JSON a parser reads, or not yet written whole when the client exited):
// it cannot be asked to cancel them.
func (r *Run) unseen(ev *Evidence) string {
	var ids []string
	for _, tf := range r.tasks {
		if tf.hidden {
			ev.entry(tf.started)
			ev.record(tf.via)
			ids = append(ids, tf.ID)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	return fmt.Sprintf("; not counted: %s, whose id never reached the client (the answer creating it was cut, reset, unreadable or unfinished at the exit)", strings.Join(ids, ", "))
}

func judgeNoOrphans(r *Run) Verdict {
	var ev Evidence
	var orphans []string
	note := r.unseen(&ev)
	for _, tf := range r.tasks {
		if tf.hidden {
			continue
		}
		st, e := tf.lastState(r.Exit)
		if e.Seq != 0 {
			ev.entry(e)
		}
		if st.Terminal() {
			continue
		}
		if c, ok := tf.canceledBefore(r.Exit); ok {
			ev.entry(c)
			continue
		}
		ev.entry(tf.started)
		orphans = append(orphans, fmt.Sprintf("%s on %s left %s", tf.ID, tf.Agent, orDefault(string(st), "without a state")))
	}
	if len(orphans) > 0 {
		return fail(ev, "the client exited without canceling tasks the agent had not ended: %s%s", strings.Join(orphans, "; "), note)
	}
	return pass(fmt.Sprintf("%d task(s), each terminal or canceled by the client%s", len(r.tasks), note), ev)
}

func judgeContinuation(r *Run) Verdict {
	var ev Evidence
	asked := 0
	for _, tf := range r.tasks {
		for _, e := range tf.events {
			if e.State != wire.StateInputRequired || e.Time.After(r.Exit) {
				continue
			}
			asked++
			ev.entry(e)
			var next *server.Entry
			for i := range r.Journal {
				j := r.Journal[i]
				if j.Seq > e.Seq && isSend(j) && j.Agent == tf.Agent {
					next = &j
					break
				}
			}
			if next == nil {
				if c, ok := tf.canceledBefore(r.Exit); ok {
					// Canceling instead of answering (a divergence) is the
					// client's call; it did not answer wrongly.
					ev.entry(c)
					break
				}
				return fail(ev, "the agent asked for input on task %s (journal #%d) and the client neither answered nor canceled the task", tf.ID, e.Seq)
			}
			ev.entry(*next)
			if next.RefTaskID != tf.ID {
				return fail(ev, "the agent asked for input on task %s (context %s); the client's next message (journal #%d) named task %q", tf.ID, tf.ContextID, next.Seq, next.RefTaskID)
			}
			if next.ContextID != tf.ContextID {
				return fail(ev, "the agent asked for input on task %s (context %s); the client's answer (journal #%d) named context %q", tf.ID, tf.ContextID, next.Seq, next.ContextID)
			}
			break // one answer per task is what the contract asks for
		}
	}
	if asked == 0 {
		return pass("the agent never asked for input", ev)
	}
	return pass("every answer to input-required named the task and its context", ev)
}

func judgeCancelsOnDivergence(r *Run) Verdict {
	var ev Evidence
	var open []string
	note := r.unseen(&ev)
	for _, tf := range r.tasks {
		if tf.hidden {
			continue
		}
		st, e := tf.lastState(r.Exit)
		if e.Seq != 0 {
			ev.entry(e)
		}
		c, canceled := tf.canceledBefore(r.Exit)
		if canceled {
			ev.entry(c)
			for _, m := range tf.messages {
				if m.Seq > c.Seq {
					ev.entry(m)
					return fail(ev, "the client canceled task %s (journal #%d) and then sent it another message (journal #%d)", tf.ID, c.Seq, m.Seq)
				}
			}
		}
		if !st.Terminal() && !canceled {
			open = append(open, fmt.Sprintf("%s (%s, %s)", tf.ID, tf.Agent, orDefault(string(st), "no state")))
		}
	}
	if len(open) > 0 {
		return fail(ev, "the client left tasks the agent had not ended without CancelTask: %s; %s%s", strings.Join(open, ", "), outcomeOf(r.Proc), note)
	}
	return pass("every task the agent left running was canceled by the client"+note, ev)
}

func outcomeOf(p *clientrun.Process) string {
	if p.Outcome == nil {
		return "no outcome reported"
	}
	return fmt.Sprintf("the client reported %q", p.Outcome.Outcome)
}

// streamLost reasons: the agent ended the stream without a terminal or
// interrupted state.
func streamLostByAgent(detail string) bool {
	return !strings.HasPrefix(detail, "complete") && !strings.HasPrefix(detail, "held open") &&
		detail != "client gone" && detail != "server shutting down"
}

func judgeRecovers(r *Run) Verdict {
	var ev Evidence
	lost := 0
	for i, e := range slices.Concat(r.Journal, r.AfterExit) {
		if e.Kind != server.EntryStreamClose || e.TaskID == "" {
			continue
		}
		tf := r.task(e.TaskID)
		if tf == nil {
			continue
		}
		var open server.Entry
		for _, q := range r.Journal {
			if q.Kind == server.EntryRequest && q.Request == e.Request {
				open = q
				break
			}
		}
		// A stream closed after the client exited was still open when it
		// did: the client left it as it leaves one it drops, with the task
		// as it was at the exit. How and when the mock closed it later
		// (client gone, server shutting down, the task's end) depends on
		// how fast the mock shut down, and is no part of the run.
		//
		// A stream the client closed (client gone) was left open by it
		// too, with the task as it was then: the client's exit closes the
		// connection, and the mock journals that before the runner's cut
		// or after it, as it happens to notice, so both read alike.
		leftOpen := i >= len(r.Journal) || e.Detail == "client gone"
		left := r.Exit
		if i < len(r.Journal) && e.Time.Before(left) {
			left = e.Time
		}
		after := int64(0)
		switch {
		case leftOpen:
			if st, _ := tf.lastState(left); st.Terminal() || st.Interrupted() {
				continue
			}
			after = open.Seq
		case streamLostByAgent(e.Detail):
			after = e.Seq
		case (strings.HasPrefix(e.Detail, "complete") || strings.HasPrefix(e.Detail, "held open")) && !r.deliveredEnd(e.Request, tf.ID):
			// The agent reached an end, but a stream behavior withheld it
			// (dropped the terminal event, cut its frame): the journal's
			// stream-event entries are what the client received, and
			// none of them ended the stream.
			after = e.Seq
		case e.Detail == "server shutting down":
			st, _ := tf.lastState(e.Time)
			if st.Terminal() || st.Interrupted() {
				continue
			}
			after = open.Seq
		default:
			continue
		}
		lost++
		ev.entry(open)
		if !leftOpen {
			ev.entry(e)
		}
		recovered := false
		for _, q := range append(slices.Clone(tf.polls), tf.subscribes...) {
			if q.Seq > after && !q.Time.After(r.Exit) {
				ev.entry(q)
				recovered = true
				break
			}
		}
		if recovered {
			continue
		}
		if leftOpen {
			st, _ := tf.lastState(left)
			return fail(ev, "the client left the stream of task %s open (it exited, or closed the connection) while the task was %s, and never asked for the task again (no GetTask or SubscribeToTask)", tf.ID, orDefault(string(st), "without a state"))
		}
		st, _ := tf.lastState(e.Time)
		return fail(ev, "the stream of task %s ended (%s) while the task was %s, and the client never asked for the task again (no GetTask or SubscribeToTask)", tf.ID, e.Detail, orDefault(string(st), "without a state"))
	}
	if lost == 0 {
		return pass("no stream was lost", ev)
	}
	return pass(fmt.Sprintf("%d lost stream(s), each followed by GetTask or SubscribeToTask", lost), ev)
}

// deliveredEnd reports whether the stream of request req wrote task a
// state that ends a stream (terminal or interrupted): whether its client
// received the end, whatever the agent emitted.
func (r *Run) deliveredEnd(req int64, task string) bool {
	for _, e := range r.Journal {
		if e.Kind == server.EntryStreamEvent && e.Request == req && e.TaskID == task && (e.State.Terminal() || e.State.Interrupted()) {
			return true
		}
	}
	return false
}

// v10Method reports whether a wire record is a call of the v1.0 method set
// (the method names of major version 1; v0.x names are slash paths).
func v10Method(w WireRecord) bool {
	if strings.Contains(w.Path, "/rest/") || strings.HasSuffix(w.Path, "/rest") {
		return true
	}
	m := w.RPCMethod
	return m != "" && !strings.Contains(m, "/") && m[0] >= 'A' && m[0] <= 'Z'
}

func judgeSendsVersion(r *Run) Verdict {
	var ev Evidence
	n := 0
	for _, w := range r.Wire {
		if !w.isA2A() || !v10Method(w) {
			continue
		}
		n++
		if !w.VersionSent || !strings.HasPrefix(strings.TrimSpace(w.A2AVersion), "1.") {
			ev.record(w)
			what := "no A2A-Version header"
			if w.VersionSent {
				what = fmt.Sprintf("A2A-Version %q", w.A2AVersion)
			}
			return fail(ev, "v1.0 request %s %s (%s) carried %s; the card declares protocol version 1.0", w.Method, w.Path, orDefault(w.RPCMethod, "HTTP+JSON"), what)
		}
	}
	if n == 0 {
		return pass("no v1.0 request was made", ev)
	}
	return pass(fmt.Sprintf("all %d v1.0 request(s) carried A2A-Version: 1.0", n), ev)
}

func judgeDeclaredInterface(r *Run) Verdict {
	var ev Evidence
	n := 0
	for _, w := range r.Wire {
		if !w.isA2A() {
			continue
		}
		n++
		card := r.Declared[w.Agent]
		if card == nil {
			ev.record(w)
			return fail(ev, "the client called %s %s on agent %q, which the scenario does not host", w.Method, w.Path, w.Agent)
		}
		url := r.Origin + w.Path
		ok := false
		var declared []string
		for _, in := range card.Interfaces {
			d := fmt.Sprintf("%s %s (%s)", in.Binding, in.URL, in.Version)
			if in.Tenant != "" {
				d += fmt.Sprintf(" tenant %q", in.Tenant)
			}
			declared = append(declared, d)
			switch in.Binding {
			case wire.BindingGRPC:
				// A gRPC interface is host:port, shared by the agents: its
				// calls name the service in the path and the tenant the
				// interface declares in the request.
				if w.GRPC && in.URL == cards.GRPCTarget(r.Origin) && in.Tenant == w.Tenant {
					ok = true
				}
			case wire.BindingJSONRPC:
				if !w.GRPC && w.Method == http.MethodPost && strings.TrimSuffix(url, "/") == strings.TrimSuffix(in.URL, "/") &&
					(w.RPCMethod == "" || v10Method(w) == (wire.Describe(in.Version).Major >= 1)) {
					ok = true
				}
			case wire.BindingREST:
				if !w.GRPC && strings.HasPrefix(url, strings.TrimSuffix(in.URL, "/")+"/") {
					ok = true
				}
			}
		}
		if !ok {
			ev.record(w)
			called := fmt.Sprintf("%s %s (%s)", w.Method, url, orDefault(w.RPCMethod, "no JSON-RPC method"))
			if w.GRPC {
				called = fmt.Sprintf("gRPC %s with tenant %q", w.RPCMethod, w.Tenant)
			}
			return fail(ev, "the client called %s but the card declares only %s", called, strings.Join(declared, ", "))
		}
	}
	return pass(fmt.Sprintf("all %d call(s) went to declared interfaces", n), ev)
}

func judgeDiscovers(r *Run) Verdict {
	var ev Evidence
	for _, agent := range r.agentsCalled() {
		var fetched []WireRecord
		var found bool
		for _, w := range r.Wire {
			if w.Agent != agent {
				continue
			}
			if w.isCard() {
				fetched = append(fetched, w)
				if w.Status == http.StatusOK {
					found = true
				}
				continue
			}
			if w.isA2A() {
				if !found {
					ev.record(fetched...)
					ev.record(w)
					if len(fetched) == 0 {
						return fail(ev, "the client called %s %s (%s) on agent %s without fetching its card first", w.Method, w.Path, orDefault(w.RPCMethod, "HTTP+JSON"), agent)
					}
					var tried []string
					for _, f := range fetched {
						tried = append(tried, fmt.Sprintf("%s → %d", f.Path, f.Status))
					}
					return fail(ev, "the client called agent %s without having read its card: it tried %s (the card is at the legacy /.well-known/agent.json when /.well-known/agent-card.json is 404)", agent, strings.Join(tried, ", "))
				}
				ev.record(fetched...)
				break
			}
		}
	}
	return pass("the client read each agent's card before calling it", ev)
}

// retryAfter parses a Retry-After value: seconds or an HTTP date.
func retryAfter(v string, at time.Time) (time.Duration, bool) {
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return t.Sub(at), true
	}
	return 0, false
}

// retrySlack allows for the clock reading of the recorder itself.
const retrySlack = 5 * time.Millisecond

func judgeRetryAfter(r *Run) Verdict {
	var ev Evidence
	n := 0
	for i, w := range r.Wire {
		if !w.retryable() || w.RetryAfter == "" {
			continue
		}
		wait, ok := retryAfter(w.RetryAfter, w.End)
		if !ok {
			continue
		}
		n++
		for _, next := range r.Wire[i+1:] {
			if next.Agent != w.Agent || !next.isA2A() || next.Start.Before(w.Start) {
				continue
			}
			if gap := next.Start.Sub(w.End); gap+retrySlack < wait {
				ev.record(w, next)
				return fail(ev, "the agent answered %s; the client called again %s later (%s %s)", w.answered(), gap.Round(time.Millisecond), next.Method, orDefault(next.RPCMethod, next.Path))
			}
			ev.record(w, next)
			break
		}
	}
	if n == 0 {
		return pass("no answer carried Retry-After", ev)
	}
	return pass(fmt.Sprintf("%d Retry-After answer(s) honoured", n), ev)
}

func judgeDuplicates(r *Run) Verdict {
	var ev Evidence
	for _, tf := range r.tasks {
		asked := 0
		for _, e := range tf.events {
			if e.State == wire.StateInputRequired {
				asked++
			}
		}
		if len(tf.messages) > asked {
			ev.entry(tf.messages...)
			return fail(ev, "the client answered task %s %d times but the agent asked for input %d time(s)", tf.ID, len(tf.messages), asked)
		}
		if len(tf.cancels) > 1 {
			ev.entry(tf.cancels...)
			return fail(ev, "the client canceled task %s %d times", tf.ID, len(tf.cancels))
		}
	}
	return pass("no task was answered or canceled more often than the agent gave reason to", ev)
}
