package judge

import (
	"fmt"
	"time"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

func judgeBoundedPolling(r *Run) Verdict {
	var ev Evidence
	limit := r.MaxPolls
	inFlight := 0
	for _, tf := range r.tasks {
		if len(tf.polls) > limit {
			ev.entry(tf.polls[limit])
			return fail(ev, "the client polled task %s with GetTask %d times; at most %d are allowed here", tf.ID, len(tf.polls), limit)
		}
		var terminal server.Entry
		for _, e := range r.Journal {
			if e.Kind == server.EntryResponse && e.TaskID == tf.ID && e.State.Terminal() && e.ErrorCode == 0 &&
				(e.Op == wire.OpSend || e.Op == wire.OpGetTask || e.Op == wire.OpCancelTask) {
				terminal = e
				break
			}
		}
		if terminal.Seq == 0 {
			continue
		}
		forgiven := false
		for _, p := range tf.polls {
			if p.Seq < terminal.Seq {
				continue
			}
			if !forgiven && r.mayHaveBeenInFlight(terminal, p) {
				forgiven = true
				inFlight++
				continue
			}
			ev.entry(terminal, p)
			return fail(ev, "the client polled task %s again (GetTask, journal #%d) after the agent had answered it with the terminal state %s (journal #%d)", tf.ID, p.Seq, terminal.State, terminal.Seq)
		}
	}
	n := 0
	for _, tf := range r.tasks {
		n += len(tf.polls)
		ev.entry(tf.polls...)
	}
	reason := fmt.Sprintf("%d GetTask call(s) over %d task(s), at most %d per task, none after a terminal answer", n, len(r.tasks), limit)
	if inFlight > 0 {
		reason += fmt.Sprintf(" (%d sent, it seems, before the client had that answer, not counted)", inFlight)
	}
	return pass(reason, ev)
}

// inFlightGrace bounds how long after a terminal answer a GetTask the
// server handled may still have left the client before it had that answer.
// Over concurrent connections the server's order is not the client's: a
// poll the client sent, then abandoned at its deadline before cancelling,
// can be handled after the cancel, late by however long the server's
// scheduler kept it waiting (under load, tens of milliseconds).
const inFlightGrace = 250 * time.Millisecond

// mayHaveBeenInFlight reports whether poll, journaled after the terminal
// answer, may have been sent before the client received it: the server
// started it before that answer ended, or started it within inFlightGrace
// of it on another connection (or over HTTP/2, where calls share one). A
// poll on the connection that carried the terminal answer came after it.
func (r *Run) mayHaveBeenInFlight(terminal, poll server.Entry) bool {
	if poll.Time.Sub(terminal.Time) > inFlightGrace {
		return false
	}
	tw, okT := r.wireOf(terminal)
	pw, okP := r.wireOf(poll)
	if !okT || !okP {
		return true
	}
	return pw.Start.Before(tw.End) || pw.GRPC || pw.Conn != tw.Conn
}

// wireOf returns the one A2A exchange with the entry's agent that was under
// way when the entry was journaled; false when there is none or several.
func (r *Run) wireOf(e server.Entry) (WireRecord, bool) {
	var found WireRecord
	n := 0
	for _, w := range r.Wire {
		if w.Agent == e.Agent && w.isA2A() && !e.Time.Before(w.Start) && !e.Time.After(w.End) {
			found = w
			n++
		}
	}
	return found, n == 1
}
