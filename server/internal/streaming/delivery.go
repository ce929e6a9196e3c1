package streaming

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/journal"
	"github.com/a2amock/a2amock/server/internal/acted"
	"github.com/a2amock/a2amock/wire"
)

// The journal of a stream says what its client received: every event
// written to the stream is an journal.EntryStreamEvent, after the stream behaviors
// dropped, duplicated, reordered, re-framed or cut what the agent emitted
// (the agent's own journal.EntryEvent entries keep what it emitted for the task);
// an event a behavior did not write when it was due is an journal.EntryWithheld.
// Both name the behaviors that shaped them.

// delivery follows the events of one stream through its behaviors' hooks
// to the writer, and journals what was written. It is used by the
// stream's goroutine only.
type delivery struct {
	record func(journal.Entry) int64
	// What the entries of the stream share (a whole journal.Entry would cost an
	// open stream some 400 bytes more).
	agent, method string
	op            wire.Op
	dialect       wire.Dialect
	binding       wire.Binding
	request       int64
	// tracking follows the events through the behaviors' hooks; nil when
	// the request has none (an open stream then costs only the above).
	*tracking
}

// tracking is what a delivery keeps to attribute what hooks did.
type tracking struct {
	// names are the behaviors owning the stream-event hooks, by index.
	names []string
	// layer is the index of the hook running (len(names): the writer).
	layer int
	// The step is the agent event being pushed through the hooks: acted
	// lists the hooks that changed it, reached the deepest hook it reached
	// unchanged, written whether it was written.
	ev      wire.Event
	acted   []int
	reached int
	// written: the step's event was journaled as written (or as cut).
	written bool
	// encoded are frames hooks rendered (RawStream.Encode) and did not
	// write yet; raw the bytes hooks wrote since the last settle, rawBy
	// the hook that wrote them.
	encoded []encodedFrame
	raw     []byte
	rawBy   string
	// gen counts the settles that found raw bytes.
	gen int
	// partial is a frame the written bytes stopped inside, until what
	// follows decides whether it was cut or re-framed.
	partial *partialFrame
	// endOwner is the behavior whose stream-end hook runs, if one does.
	endOwner string
	// log is the request's log of the behaviors that acted.
	log *acted.Log
}

type encodedFrame struct {
	ev    wire.Event
	frame []byte
	// gen is the settle the frame was rendered before.
	gen int
}

func newDelivery(record func(journal.Entry) int64, agent string, req *wire.Request, reqNo int64, names []string, log *acted.Log) *delivery {
	d := &delivery{record: record, agent: agent, method: req.Method, op: req.Op, dialect: req.Dialect, binding: req.Binding, request: reqNo}
	if len(names) > 0 || log != nil {
		d.tracking = &tracking{names: names, layer: len(names), log: log}
	}
	return d
}

// owner names hook i, or "" for the server itself.
func (d *delivery) owner(i int) string {
	if i >= 0 && i < len(d.names) {
		return d.names[i]
	}
	return ""
}

func (d *delivery) ownerList(is []int) []string {
	var out []string
	for _, i := range is {
		if n := d.owner(i); n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func (d *delivery) noteAct(i int) {
	if !slices.Contains(d.acted, i) {
		d.acted = append(d.acted, i)
	}
	d.log.Add(d.owner(i), journal.HookStreamEvent)
}

// entry is the journal entry of event ev on this stream.
func (d *delivery) entry(kind journal.EntryKind, ev wire.Event) journal.Entry {
	e := journal.Entry{Agent: d.agent, Kind: kind, Op: d.op, Method: d.method, Dialect: d.dialect, Binding: d.binding,
		Request: d.request, TaskID: ev.TaskID(), State: ev.State()}
	switch {
	case ev.Artifact != nil:
		e.Detail = "artifact " + ev.Artifact.Artifact.ArtifactID
	case ev.Message != nil:
		e.Detail = "message"
		e.MessageID = ev.Message.MessageID
	}
	if ev.Task != nil {
		e.ContextID = ev.Task.ContextID
	} else if ev.Status != nil {
		e.ContextID = ev.Status.ContextID
	} else if ev.Artifact != nil {
		e.ContextID = ev.Artifact.ContextID
	}
	return e
}

// chain composes the stream-event hooks over write (hooks[0] sees each
// event first) and returns the function the stream emits every event of
// the agent with. write leaves what it writes unflushed; raw.sent flushes
// it once it is journaled (as the entry numbered seq), so that the
// journal holds every event before the client can read it.
func (d *delivery) chain(hooks []func(wire.Event, func(wire.Event) error, behaviors.RawStream) error, write func(wire.Event) error, raw *rawStream) func(wire.Event) error {
	if d.tracking == nil {
		return func(ev wire.Event) error {
			err := write(ev)
			e := d.entry(journal.EntryStreamEvent, ev)
			if err != nil {
				e.Kind, e.Detail = journal.EntryWithheld, joinDetail(e.Detail, "not written: "+err.Error())
			}
			seq := d.record(e)
			if err == nil {
				err = raw.sent(seq)
			}
			return err
		}
	}
	bottom := func(ev wire.Event) error {
		err := write(ev)
		if err != nil {
			return err
		}
		e := d.entry(journal.EntryStreamEvent, ev)
		if d.isStep(ev) {
			d.written = true
		}
		e.Behaviors = d.ownerList(d.acted)
		return raw.sent(d.record(e))
	}
	emit := bottom
	for i := len(hooks) - 1; i >= 0; i-- {
		h, next := hooks[i], emit
		emit = func(ev wire.Event) error {
			if d.isStep(ev) {
				d.reached = max(d.reached, i)
			}
			outs, same := 0, true
			pass := func(out wire.Event) error {
				outs++
				if out != ev {
					same = false
				}
				prev := d.layer
				d.layer = i + 1
				defer func() { d.layer = prev }()
				return next(out)
			}
			prev := d.layer
			d.layer = i
			err := h(ev, pass, raw)
			d.layer = prev
			if outs != 1 || !same {
				d.noteAct(i)
			}
			return err
		}
	}
	return func(ev wire.Event) error {
		d.ev, d.acted, d.reached, d.written = ev, nil, -1, false
		err := emit(ev)
		d.settle(false)
		if !d.written {
			e := d.entry(journal.EntryWithheld, ev)
			by := d.reached
			if len(hooks) > 0 && by < 0 {
				by = 0
			}
			e.Behaviors = d.ownerList([]int{by})
			if err != nil && len(e.Behaviors) == 0 {
				e.Detail = joinDetail(e.Detail, "not written: "+err.Error())
			}
			if d.record != nil {
				d.record(e)
			}
		}
		d.ev = wire.Event{}
		return err
	}
}

// isStep reports whether ev is the step's event or stands for it: a hook
// may pass the event on rendered anew (a replay writes the recording's
// rendering of the event the engine emitted, with the recorded timestamps
// and messages), which is that event written, of the same kind for the
// same task, state, artifact or message; not the event withheld and
// another one written.
func (d *delivery) isStep(ev wire.Event) bool {
	if ev == d.ev {
		return true
	}
	s := d.ev
	switch {
	case s.Task != nil:
		return ev.Task != nil && ev.Task.ID == s.Task.ID && ev.Task.Status.State == s.Task.Status.State
	case s.Status != nil:
		return ev.Status != nil && ev.Status.TaskID == s.Status.TaskID && ev.Status.Status.State == s.Status.Status.State
	case s.Artifact != nil:
		return ev.Artifact != nil && ev.Artifact.TaskID == s.Artifact.TaskID && ev.Artifact.Artifact.ArtifactID == s.Artifact.Artifact.ArtifactID
	case s.Message != nil:
		return ev.Message != nil && ev.Message.MessageID == s.Message.MessageID
	}
	return false
}

// encode notes a frame a hook rendered.
func (d *delivery) encode(ev wire.Event, frame []byte) {
	d.encoded = append(d.encoded, encodedFrame{ev: ev, frame: frame, gen: d.gen})
}

// writeRaw notes bytes a hook wrote.
func (d *delivery) writeRaw(b []byte) {
	d.raw = append(d.raw, b...)
	switch {
	case d.layer < len(d.names):
		d.rawBy = d.owner(d.layer)
		d.noteAct(d.layer)
	case d.endOwner != "":
		d.rawBy = d.endOwner
		d.log.Add(d.endOwner, journal.HookStreamEnd)
	}
}

// settle journals the frames written as raw bytes since the last settle:
// a frame found whole is an event written (re-framed around it or not); a
// frame whose start was written with other bytes than it would have had
// was written with altered framing; a frame the bytes stop inside is
// decided by what follows: more bytes make it a frame with altered
// framing (events run together), the end of the stream (final) a frame
// cut mid-way, which no conforming reader dispatches.
func (d *delivery) settle(final bool) {
	if d.tracking == nil {
		return
	}
	if p := d.partial; p != nil && (len(d.raw) > 0 || final) {
		d.partial = nil
		if len(d.raw) > 0 {
			p.e.Detail = joinDetail(p.e.Detail, "written with altered framing")
		} else {
			p.e.Kind = journal.EntryWithheld
			p.e.Detail = joinDetail(p.e.Detail, fmt.Sprintf("cut mid-frame: %d of %d bytes written", p.k, p.n))
		}
		d.record(p.e)
	}
	if len(d.raw) == 0 {
		return
	}
	raw := d.raw
	var by []string
	if d.rawBy != "" {
		by = []string{d.rawBy}
	}
	keep := d.encoded[:0]
	for _, f := range d.encoded {
		e := d.entry(journal.EntryStreamEvent, f.ev)
		e.Behaviors = by
		if bytes.Contains(raw, f.frame) {
			e.Detail = joinDetail(e.Detail, "written as raw bytes")
		} else {
			j := bytes.Index(raw, f.frame[:min(len(f.frame), 12)])
			switch {
			case j < 0 && f.gen < d.gen:
				// Rendered before the last bytes were written and not in
				// these: still held (a burst to come).
				keep = append(keep, f)
				continue
			case j >= 0 && commonPrefix(raw[j:], f.frame) == len(raw)-j:
				k := len(raw) - j
				if d.isStep(f.ev) {
					d.written = true
				}
				d.partial = &partialFrame{e: e, k: k, n: len(f.frame)}
				continue
			}
			// Rendered and written as other bytes: re-framed.
			e.Detail = joinDetail(e.Detail, "written with altered framing")
		}
		if d.isStep(f.ev) {
			d.written = true // journaled as written
		}
		d.record(e)
	}
	d.encoded = keep
	d.raw, d.rawBy = d.raw[:0], ""
	d.gen++
}

// partialFrame is a frame whose written bytes stopped inside it.
type partialFrame struct {
	e    journal.Entry
	k, n int
}

func joinDetail(a, b string) string {
	if a == "" {
		return b
	}
	return a + ": " + b
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
