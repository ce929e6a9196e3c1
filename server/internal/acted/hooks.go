// Package acted says which behaviors acted on a request and how: it
// applies an agent's behaviors to a request's exchange (Set.Apply),
// reporting which were in scope and which were skipped, with why; it
// remembers which behavior registered each hook (Owners); and it wraps the
// hooks so that each one that changes anything names its behavior in the
// journal (Instrument, Log). The counts per behavior are what
// GET /_a2amock/behaviors reports (Set.Stats).
//
// It applies behaviors and keeps counts; it does not decide anything
// about the request itself, nor journal anything but through the function
// it is given.
package acted

import (
	"bytes"
	"net/textproto"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/journal"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// Owners says which behavior registered each hook of an exchange (by
// the hook's index), so that the server can name who acted. The server
// reads the ones whose hooks it reads as values: Reject, Legacy, Delay,
// HideCard and StreamEvent.
type Owners struct {
	decide, plan, result, StreamEvent, streamEnd []string
	card, cardJSON, signedCard, wrapWriter, push []string
	Reject, streamNotStream, Legacy, beforeReply string
	Delay, HideCard                              []string
}

// hookCounts is what an exchange had registered before a behavior applied.
type hookCounts struct {
	decide, plan, result, streamEvent, streamEnd  int
	card, cardJSON, signedCard, wrapWriter, hides int
	push                                          int
	reject                                        *wire.Error
	notStream, legacy, beforeReply                bool
	delay                                         int64
}

// Hooked reports whether the behaviors registered any hook on x: without
// one, Instrument has nothing to wrap, and its caller need not build the
// amend function it would hand it (an allocation on every request).
func Hooked(x *behaviors.Exchange) bool { return countHooks(x.Hooks()) != (hookCounts{}) }

func countHooks(h *behaviors.Hooks) hookCounts {
	return hookCounts{decide: len(h.Decide), plan: len(h.Plan), result: len(h.Result), streamEvent: len(h.StreamEvent),
		streamEnd: len(h.StreamEnd), card: len(h.Card), cardJSON: len(h.CardJSON), signedCard: len(h.SignedCard),
		wrapWriter: len(h.Transport), hides: len(h.HideCardPath), reject: h.Reject, notStream: h.StreamNotStream != nil,
		legacy: h.LegacySubscribe, delay: int64(h.Delay), push: len(h.Push.Filters), beforeReply: h.Push.BeforeReply}
}

// note records name as the owner of the hooks registered since before.
func (o *Owners) note(name string, before hookCounts, h *behaviors.Hooks) {
	grow := func(list []string, from, to int) []string {
		for ; from < to; from++ {
			list = append(list, name)
		}
		return list
	}
	o.decide = grow(o.decide, before.decide, len(h.Decide))
	o.plan = grow(o.plan, before.plan, len(h.Plan))
	o.result = grow(o.result, before.result, len(h.Result))
	o.StreamEvent = grow(o.StreamEvent, before.streamEvent, len(h.StreamEvent))
	o.streamEnd = grow(o.streamEnd, before.streamEnd, len(h.StreamEnd))
	o.card = grow(o.card, before.card, len(h.Card))
	o.cardJSON = grow(o.cardJSON, before.cardJSON, len(h.CardJSON))
	o.signedCard = grow(o.signedCard, before.signedCard, len(h.SignedCard))
	o.wrapWriter = grow(o.wrapWriter, before.wrapWriter, len(h.Transport))
	o.push = grow(o.push, before.push, len(h.Push.Filters))
	if h.Push.BeforeReply && !before.beforeReply {
		o.beforeReply = name
	}
	if len(h.HideCardPath) > before.hides {
		o.HideCard = append(o.HideCard, name)
	}
	if h.Reject != before.reject && h.Reject != nil {
		o.Reject = name
	}
	if h.StreamNotStream != nil && !before.notStream {
		o.streamNotStream = name
	}
	if h.LegacySubscribe && !before.legacy {
		o.Legacy = name
	}
	if int64(h.Delay) > before.delay {
		o.Delay = append(o.Delay, name)
	}
}

// Log collects the behaviors that acted on one request and keeps the
// request's journal entry up to date with them (through the amend function
// Instrument is given).
type Log struct {
	amend func([]journal.ActedBehavior)
	mu    sync.Mutex
	in    []journal.ActedBehavior
}

// Add names the behavior name as having acted through hook; a nil Log or
// an empty name does nothing, so that call sites need no check.
func (l *Log) Add(name, hook string) {
	if l == nil || name == "" {
		return
	}
	a := journal.ActedBehavior{Behavior: name, Hook: hook}
	l.mu.Lock()
	defer l.mu.Unlock()
	if slices.Contains(l.in, a) {
		return
	}
	l.in = append(l.in, a)
	list := slices.Clone(l.in)
	l.amend(list)
}

// Instrument wraps the hooks of x so that each one that changes anything
// names its behavior through amend, which gets the whole list so far each
// time (the server writes it into the request's journal entry); the
// hooks' call sites stay as they are. It returns the log, which the server
// itself adds to for the hooks it reads as values (reject, delay, stream
// events).
//
// streamEnd, when not nil, is called around each stream-end hook with the
// name of the behavior whose hook runs; the function it returns is called
// once the hook is done (the server's stream delivery names the behavior
// that wrote raw bytes that way).
//
// With no hook registered it returns nil, on which Add does nothing.
func Instrument(x *behaviors.Exchange, own Owners, amend func([]journal.ActedBehavior), streamEnd func(raw behaviors.RawStream, name string) (done func())) *Log {
	h := x.Hooks()
	if countHooks(h) == (hookCounts{}) {
		return nil
	}
	l := &Log{amend: amend}
	for i, f := range h.Decide {
		name := own.decide[i]
		h.Decide[i] = func(d *timeline.Decision, t *wire.Task) {
			before := *d
			f(d, t)
			if *d != before {
				l.Add(name, journal.HookDecide)
			}
		}
	}
	for i, f := range h.Plan {
		name := own.plan[i]
		h.Plan[i] = func(tl timeline.Timeline) timeline.Timeline {
			before := tl.Clone()
			out := f(tl)
			if !reflect.DeepEqual(before, out) {
				l.Add(name, journal.HookPlan)
			}
			return out
		}
	}
	for i, f := range h.Result {
		name := own.result[i]
		h.Result[i] = func(res *wire.Result, e *wire.Error) (*wire.Result, *wire.Error) {
			r2, e2 := f(res, e)
			if r2 != res || e2 != e {
				l.Add(name, journal.HookResult)
			}
			return r2, e2
		}
	}
	for i, f := range h.StreamEnd {
		name := own.streamEnd[i]
		h.StreamEnd[i] = func(raw behaviors.RawStream) bool {
			if streamEnd != nil {
				defer streamEnd(raw, name)()
			}
			hold := f(raw)
			if hold {
				l.Add(name, journal.HookStreamEnd)
			}
			return hold
		}
	}
	if f := h.StreamNotStream; f != nil {
		name := own.streamNotStream
		h.StreamNotStream = func(id []byte) (int, string, []byte) {
			l.Add(name, journal.HookStreamNotStream)
			return f(id)
		}
	}
	for i, f := range h.Transport {
		name := own.wrapWriter[i]
		h.Transport[i] = func(t behaviors.Transport) {
			f(actedTransport{t: t, acted: func() { l.Add(name, journal.HookTransport) }})
		}
	}
	for i, f := range h.Card {
		name := own.card[i]
		h.Card[i] = func(c *cards.Card) {
			before := *c
			before.Skills = slices.Clone(c.Skills)
			f(c)
			if !reflect.DeepEqual(&before, c) {
				l.Add(name, journal.HookCard)
			}
		}
	}
	for i, f := range h.CardJSON {
		name := own.cardJSON[i]
		h.CardJSON[i] = func(b []byte) []byte {
			in := bytes.Clone(b)
			out := f(b)
			if !bytes.Equal(in, out) {
				l.Add(name, journal.HookCardJSON)
			}
			return out
		}
	}
	for i, f := range h.SignedCard {
		name := own.signedCard[i]
		h.SignedCard[i] = func(b []byte) []byte {
			in := bytes.Clone(b)
			out := f(b)
			if !bytes.Equal(in, out) {
				l.Add(name, journal.HookSignedCard)
			}
			return out
		}
	}
	for i, f := range h.Push.Filters {
		// Run later, by the task's player: a notification the filter did
		// not hand on once, as it was, names it on the creating request.
		name := own.push[i]
		h.Push.Filters[i] = func(ev wire.Event, deliver behaviors.PushDeliver) {
			n, same := 0, true
			f(ev, func(out wire.Event, o behaviors.PushOptions) {
				n++
				if out != ev || o.Delay != 0 || o.Token != nil || o.Rewrite != nil {
					same = false
				}
				deliver(out, o)
			})
			if n != 1 || !same {
				l.Add(name, journal.HookPush)
			}
		}
	}
	if h.Push.BeforeReply && x.Request != nil && x.Request.Config.PushConfig != nil {
		l.Add(own.beforeReply, journal.HookPushBeforeReply)
	}
	return l
}

// AddAll names every owner in names as having acted through hook.
func (l *Log) AddAll(names []string, hook string) {
	for _, n := range names {
		l.Add(n, hook)
	}
}

// actedTransport is a binding's Transport that names the behavior whose
// hook asked it for a fault (a Rewrite or HoldKeepAlives the binding has
// no meaning for changes nothing).
type actedTransport struct {
	t     behaviors.Transport
	acted func()
}

func (a actedTransport) Fail(f behaviors.Failure) { a.acted(); a.t.Fail(f) }
func (a actedTransport) Cut(n int, reset bool)    { a.acted(); a.t.Cut(n, reset) }
func (a actedTransport) Delay(p behaviors.Phase, d time.Duration) {
	if d > 0 {
		a.acted()
	}
	a.t.Delay(p, d)
}
func (a actedTransport) Rewrite(u func(int, textproto.MIMEHeader, []byte) (int, []byte), st func(textproto.MIMEHeader)) bool {
	ok := a.t.Rewrite(u, st)
	if ok {
		a.acted()
	}
	return ok
}
func (a actedTransport) Corrupt(nth int, f func([]byte) []byte) { a.acted(); a.t.Corrupt(nth, f) }
func (a actedTransport) HoldKeepAlives(hold func() bool) bool {
	ok := a.t.HoldKeepAlives(hold)
	if ok {
		a.acted()
	}
	return ok
}
