// Package streaming answers the streaming operations (SendStreamingMessage
// / message/stream, SubscribeToTask / tasks/resubscribe) on any binding:
// it subscribes to the task's timeline in the engine, frames each event
// through the binding's Framer, runs the stream behaviors' hooks on the
// way out (drop, duplicate, reorder, hold, cut, raw bytes), keeps the
// stream alive on the server's clock, holds it open when asked, and
// journals what the client really received (EntryStreamEvent), what was
// withheld (EntryWithheld) and how the stream ended (EntryStreamClose).
//
// It neither decides nor plans: the engine does; nor does it route or
// check credentials: the server's core does, before a Stream is served.
package streaming

import (
	"context"
	"net/http"
	"time"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/engine"
	"github.com/a2amock/a2amock/journal"
	"github.com/a2amock/a2amock/server/internal/acted"
	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/server/internal/httpbind"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// SetEndOwner names the behavior whose stream-end hook is about to run on
// raw (a stream Serve handed the hooks), so that raw bytes it writes are
// journaled as its own; the returned function clears the name. On any
// other stream it does nothing.
func SetEndOwner(raw behaviors.RawStream, name string) func() {
	if rs, ok := raw.(*rawStream); ok && rs.dl != nil && rs.dl.tracking != nil {
		rs.dl.endOwner = name
		return func() { rs.dl.endOwner = "" }
	}
	return func() {}
}

// rawStream gives stream behaviors byte-level control; what they write is
// told to the stream's delivery, for the journal.
type rawStream struct {
	sw     binding.StreamWriter
	f      binding.Framer
	closed bool
	dl     *delivery
	// held: bytes WriteRawLast or the stream's write put are still in the
	// response's buffer.
	held bool
	// amender amends the entry of an event whose flush failed (sent).
	amender Amender
}

func (r *rawStream) WriteRaw(b []byte) error {
	r.release()
	err := r.sw.WriteRaw(b)
	if err == nil && r.dl != nil && r.dl.tracking != nil {
		r.dl.writeRaw(b)
	}
	return err
}

// WriteRawLast implements core.RawLastWriter: b is put in the response's
// buffer, unflushed, and told to the delivery; the delivery journals the
// events b completes when the hook returns (settle), and the stream lets b
// go after that (release), or leaves it to the response's end when the
// stream ends there. A write error is returned before anything is told,
// so the journal never has an event written whose bytes the response
// refused; a flush failure afterwards (the client gone) leaves the entry,
// as for the last event of an ordinary stream (sse.Writer.Last).
func (r *rawStream) WriteRawLast(b []byte) error {
	// Bytes held before go out in their own flush, as WriteRaw would have
	// sent them, not in one read with b.
	r.release()
	if err := r.sw.Put(b); err != nil {
		return err
	}
	r.held = true
	if r.dl != nil && r.dl.tracking != nil {
		r.dl.writeRaw(b)
	}
	return nil
}

// release flushes what WriteRawLast left in the response's buffer, before
// the stream waits or writes anything else. The delivery journals those
// bytes first (settle): the stream calls release once the hook returned,
// when they are journaled already, but a hook may also go on after
// WriteRawLast (pass the event on, whose write releases them), and its
// bytes would otherwise reach the client before the journal holds them.
// A flush failure is the writer's sticky error, which the next write
// reports.
func (r *rawStream) release() {
	if r.held {
		r.held = false
		if r.dl != nil {
			r.dl.settle(false)
		}
		_ = r.sw.Flush()
	}
}

// sent flushes the event the stream's write put, once the delivery
// journaled it as entry seq; after the stream's last event (nothing held)
// it does nothing. A flush that fails (the client gone) makes the entry
// what it was when the write flushed before the journal: the event
// withheld, not written.
func (r *rawStream) sent(seq int64) error {
	if !r.held {
		return nil
	}
	r.held = false
	err := r.sw.Flush()
	if err != nil && r.amender != nil {
		// Only what the amendment needs is captured: err itself
		// would escape to the heap on every flush.
		why := "not written: " + err.Error()
		r.amender.Amend(seq, func(e *journal.Entry) { e.Kind, e.Detail = journal.EntryWithheld, joinDetail(e.Detail, why) })
	}
	return err
}

func (r *rawStream) KeepAlive() error {
	r.release()
	return r.sw.KeepAlive()
}

func (r *rawStream) Close() { r.closed = true }

// Cut implements core.RawCutter: Close, and the binding's stream writer,
// when it can, leaves out what ends a stream properly (gRPC's trailers).
func (r *rawStream) Cut() {
	r.closed = true
	if c, ok := r.sw.(interface{ Cut() }); ok {
		c.Cut()
	}
}
func (r *rawStream) Encode(ev wire.Event) ([]byte, error) {
	data, err := r.f.Event(ev)
	if err != nil {
		return nil, err
	}
	frame, err := r.sw.Frame(sse.Event{Data: data})
	if err == nil && r.dl != nil && r.dl.tracking != nil {
		r.dl.encode(ev, frame)
	}
	return frame, err
}

// Stream is one streaming request of an agent, with what it needs of the
// server.
type Stream struct {
	// Agent is the agent's engine, AgentName its name.
	Agent     *engine.Agent
	AgentName string
	// Clock times keep-alives every KeepAlive.
	Clock     timeline.Clock
	KeepAlive time.Duration
	// ServerCtx ends when the server closes, AgentCtx when the agent is
	// removed: both end the stream.
	ServerCtx context.Context
	AgentCtx  context.Context
	// Record journals an entry (its Seq and Time are set there) and
	// returns its Seq; Amender changes the entry of that Seq (nil:
	// entries stay as recorded); Respond journals the request's response
	// (the stream's start, or its refusal).
	Record  func(journal.Entry) int64
	Amender Amender
	Respond func(res *wire.Result, e *wire.Error)
}

// Amender changes a journaled entry (journal.Journal does): an interface,
// where a method value would cost every stream an allocation.
type Amender interface {
	Amend(seq int64, f func(*journal.Entry))
}

// Serve answers the request req (numbered reqNo) of exchange x on w, as
// SSE or the binding's stream framing (f).
//
// Every event written is journaled as an EntryStreamEvent, every event a
// behavior held as an EntryWithheld (delivery.go); owners names the
// behaviors of the stream-event hooks, log the request's log of acting behaviors.
func (s *Stream) Serve(w http.ResponseWriter, r *http.Request, req *wire.Request, x *behaviors.Exchange, reqNo int64, f binding.Framer, owners []string, log *acted.Log) error {
	hooks := x.Hooks()
	refuse := func(e *wire.Error) error {
		// Result hooks may rewrite the error of a refused stream as they
		// do a unary one (wrong-error-code), never its result.
		for _, f := range hooks.Result {
			if _, e2 := f(nil, e); e2 != nil {
				e = e2
			}
		}
		s.Respond(nil, e)
		return f.Refuse(w, e)
	}
	if e := s.Agent.GateRequest(req); e != nil {
		return refuse(e)
	}
	if hooks.StreamNotStream != nil {
		status, ct, body := hooks.StreamNotStream(f.RPCID())
		s.Respond(nil, &wire.Error{Message: "answered a stream request with " + ct})
		return httpbind.WriteJSON(w, status, ct, body)
	}
	sub := engine.NewSubscriber()
	var taskID string
	var first []wire.Event
	synthesizeTask := false
	// reattached is a stream joining a task that already exists.
	reattached := req.Op == wire.OpSubscribe
	// opening is the task as a continuation found it, before any step.
	var opening *wire.Task
	switch req.Op {
	case wire.OpStream:
		d, _ := s.Agent.Decide(x, req)
		switch d.Kind {
		case timeline.DecideReject:
			return refuse(d.Err)
		case timeline.DecideMessage:
			first = []wire.Event{{Message: s.Agent.ReplyMessage(req.Message)}}
		case timeline.DecideDuplicate:
			// A resent message re-attaches to its task, as SubscribeToTask
			// would, whatever state the task is in (idempotency.go).
			t, _, e := s.Agent.Subscribe(d.TaskID, sub)
			if e != nil {
				return refuse(e)
			}
			taskID, reattached = t.ID, true
			if t.Status.State.Terminal() {
				s.Agent.Unsubscribe(taskID, sub)
				sub = nil
			}
			first = []wire.Event{{Task: t.TrimHistory(req.Config.HistoryLength)}}
		default:
			id, e := s.Agent.Start(req, x, d, sub, &opening)
			if e != nil {
				return refuse(e)
			}
			taskID = id
			// The stream opens with a Task that stands for the first
			// status the task goes through (see the loop below).
			synthesizeTask = true
			if d.Kind == timeline.DecideNew {
				opening = nil
			}
		}
	case wire.OpSubscribe:
		t, _, e := s.Agent.Subscribe(req.TaskID, sub)
		if e != nil {
			return refuse(e)
		}
		taskID = t.ID
		if t.Status.State.Terminal() {
			s.Agent.Unsubscribe(taskID, sub)
			if wire.Describe(req.Dialect).SubscribeTerminalFails {
				return refuse(wire.Errorf(wire.CodeUnsupportedOperation, "task %s is %s: a terminal task cannot be subscribed to", t.ID, t.Status.State).With("taskId", t.ID))
			}
			// v0.3: a finished task answers with its final state and closes.
			sub = nil
		}
		first = []wire.Event{{Task: t}}
	}
	if sub != nil && taskID != "" {
		defer s.Agent.Unsubscribe(taskID, sub)
	}
	s.Respond(&wire.Result{Task: &wire.Task{ID: taskID}}, nil)

	sw := f.Open(w)
	dl := newDelivery(s.Record, s.AgentName, req, reqNo, owners, log)
	raw := &rawStream{sw: sw, f: f, dl: dl, amender: s.Amender}
	// last is set while the event that ends the stream is written, when
	// nothing can follow it (see lastOf): it is left to the response's
	// end, which comes after the stream's end is journaled too.
	last := false
	// write puts an event in the response's buffer, unflushed: the
	// delivery journals it, then lets it go (rawStream.sent), so that a
	// client never reads an event the journal does not hold yet.
	write := func(ev wire.Event) error {
		raw.release()
		data, err := f.Event(ev)
		if err != nil {
			return err
		}
		if err := sw.Last(sse.Event{Data: data}); err != nil {
			return err
		}
		raw.held = !last
		return nil
	}
	emit := dl.chain(hooks.StreamEvent, write, raw)
	if err := sw.WriteHeader(); err != nil {
		return nil
	}
	closeReason := "client gone"
	defer func() {
		dl.settle(true) // what stream-end hooks wrote, and a cut frame
		s.Record(journal.Entry{Agent: s.AgentName, Kind: journal.EntryStreamClose, Op: req.Op, Method: req.Method, Dialect: req.Dialect,
			Binding: req.Binding, Request: reqNo, TaskID: taskID, Detail: closeReason})
	}()
	ends := sub == nil || len(first) > 0 && first[0].Message != nil
	for i, ev := range first {
		last = ends && i == len(first)-1 && s.lastOf(taskID, hooks)
		if err := emit(ev); err != nil || raw.closed {
			closeReason = "closed by behavior"
			return nil
		}
	}
	if sub == nil || len(first) > 0 && first[0].Message != nil {
		closeReason = "complete"
		return nil
	}
	if st := stateOf(first); reattached && (st.Terminal() || st.Interrupted()) {
		// Re-attached to an interrupted task: nothing will come until the
		// client acts, so end as a live stream would have.
		closeReason = "complete: " + string(st)
		if !s.holdOpen(r, taskID, sw, raw, hooks) {
			return nil
		}
		closeReason = "held open until client left"
		return nil
	}

	ka := s.KeepAlive
	// The keep-alive timer restarts after every event and is released when
	// the stream ends, so a fake clock never holds a stale keep-alive
	// deadline that nobody waits for.
	var kaFired <-chan time.Time
	kaStop := func() bool { return false }
	defer func() { kaStop() }()
	for {
		// Bytes a hook left unflushed (WriteRawLast) were journaled when
		// its event's emit returned: they go out before the stream waits.
		raw.release()
		// The keep-alive period starts when the loop waits again, after
		// an event was fully written (a behavior may have held it back).
		if kaFired == nil {
			kaFired, kaStop = s.Clock.NewTimer(ka)
		}
		select {
		case it, ok := <-sub.C():
			kaStop()
			kaFired = nil
			if !ok {
				if sub.Overflowed() {
					closeReason = "client too slow: events overflowed"
					// Unflushed: it goes out as the response ends, after the
					// stream's close entry says why.
					_ = sw.Last(sse.Event{Data: f.ErrorFrame(wire.Errorf(wire.CodeInternal, "stream closed: the client read slower than the agent emitted"))})
				} else if closeReason = s.endReason(); closeReason == "client gone" {
					// Removing the agent or closing the server also ends
					// its subscriptions: only otherwise was the task
					// forgotten (a reset).
					closeReason = "task forgotten"
				}
				return nil
			}
			if it.EndStream {
				closeReason = "ended by timeline without a final event"
				return nil
			}
			if it.PlayerDone || it.Event == nil {
				continue
			}
			ev := *it.Event
			if synthesizeTask {
				synthesizeTask = false
				t := opening
				if t == nil {
					t = &wire.Task{ID: taskID, ContextID: req.Message.ContextID, History: []wire.Message{*req.Message},
						Status: wire.TaskStatus{State: wire.StateSubmitted}}
					if cur := s.Agent.Snapshot(taskID); cur != nil {
						t.ContextID = cur.ContextID
						t.History[0].TaskID, t.History[0].ContextID = taskID, cur.ContextID
					}
				}
				if ev.Status != nil && ev.Status.TaskID == taskID && (opening != nil || ev.Status.Status.State == wire.StateSubmitted) {
					// The first status becomes the stream's opening Task:
					// submitted for a new task; for a continuation the state
					// it moved to on taking the message (working), so the
					// stream never opens on the interrupted state the client
					// just answered.
					t.Status = ev.Status.Status
					ev = wire.Event{Task: t.TrimHistory(req.Config.HistoryLength)}
				} else if err := emit(wire.Event{Task: t.TrimHistory(req.Config.HistoryLength)}); err != nil || raw.closed {
					closeReason = "closed by behavior"
					return nil
				}
			}
			st := ev.State()
			last = ev.TaskID() == taskID && (st.Terminal() || st.Interrupted()) && s.lastOf(taskID, hooks)
			if err := emit(ev); err != nil || raw.closed {
				if raw.closed {
					closeReason = "closed by behavior"
				}
				return nil
			}
			if ev.TaskID() == taskID && (st.Terminal() || st.Interrupted()) {
				closeReason = "complete: " + string(st)
				if s.holdOpen(r, taskID, sw, raw, hooks) {
					closeReason = "held open after " + string(st) + " until client left"
				}
				return nil
			}
		case <-kaFired:
			kaFired = nil
			if err := sw.KeepAlive(); err != nil {
				return nil
			}
		case <-r.Context().Done():
			// The request's context also ends with the server (its base
			// context) and with a removed agent (answer.Server.Request): by the time
			// the loop looks, both cases may be ready, and select picks one
			// at random, so the reason is what ended, not the case taken.
			closeReason = s.endReason()
			return nil
		case <-s.ServerCtx.Done():
			closeReason = s.endReason()
			return nil
		case <-s.AgentCtx.Done():
			closeReason = s.endReason()
			return nil
		}
	}
}

// lastOf reports whether the event that ends the stream of task is the
// last thing written to it: no behavior's hook can hold, reorder or follow
// it (no stream-event or stream-end hooks), and neither the timeline nor
// a behavior holds the stream open after it.
func (s *Stream) lastOf(taskID string, hooks *behaviors.Hooks) bool {
	return len(hooks.StreamEvent) == 0 && len(hooks.StreamEnd) == 0 && (taskID == "" || !s.Agent.HoldsStreams(taskID))
}

// streamEndReason names what ended a stream whose context or agent is done:
// the server closing, else the agent's removal, else the client leaving.
func (s *Stream) endReason() string {
	switch {
	case s.ServerCtx.Err() != nil:
		return "server shutting down"
	case s.AgentCtx.Err() != nil:
		return "agent removed"
	default:
		return "client gone"
	}
}

func stateOf(evs []wire.Event) wire.TaskState {
	if len(evs) == 0 {
		return ""
	}
	return evs[0].State()
}

// holdOpen runs the stream-end hooks; when the timeline or a behavior asks
// for it, it keeps the stream open with keep-alives until the client leaves
// or the server closes, and reports true.
func (s *Stream) holdOpen(r *http.Request, taskID string, sw binding.StreamWriter, raw *rawStream, hooks *behaviors.Hooks) bool {
	hold := s.Agent.HoldsStreams(taskID)
	for _, f := range hooks.StreamEnd {
		if f(raw) {
			hold = true
		}
	}
	if !hold || raw.closed {
		return false
	}
	// What the hooks wrote is journaled before it goes out (release) and
	// the stream waits, not when the client finally leaves.
	raw.dl.settle(false)
	raw.release()
	kaFired, kaStop := s.Clock.NewTimer(s.KeepAlive)
	defer func() { kaStop() }()
	for {
		select {
		case <-kaFired:
			kaFired, kaStop = s.Clock.NewTimer(s.KeepAlive)
			if err := sw.KeepAlive(); err != nil {
				return true
			}
		case <-r.Context().Done():
			return true
		case <-s.AgentCtx.Done():
			return true
		}
	}
}
