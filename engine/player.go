package engine

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// Item is what a subscriber receives. The event is held by pointer: every
// open stream buffers SubscriberBuffer items, and a 16-byte item (rather
// than 40 with the event inline) keeps that buffer at 4 KiB.
type Item struct {
	// Event is the event emitted, nil for the other items.
	Event *wire.Event
	// EndStream: the timeline's StepEndStream, close now without another
	// event.
	EndStream bool
	// PlayerDone: the task's player has played its last step.
	PlayerDone bool
}

// Subscriber receives the events of one task.
type Subscriber struct {
	ch chan Item
	// lossy subscribers only need a wake-up (a waiting unary send re-reads
	// the task on each); a full buffer drops the item instead of closing.
	lossy    bool
	overflow atomic.Bool
	// taken is the task's moves when Start took the message: a waiting
	// send settles only on a state reached after it.
	taken int64
}

// SubscriberBuffer is the number of items a stream's subscriber buffers; a
// reader that falls further behind loses its subscription.
const SubscriberBuffer = 256

// NewSubscriber returns a subscriber for a stream.
func NewSubscriber() *Subscriber { return &Subscriber{ch: make(chan Item, SubscriberBuffer)} }

// NewWaiter returns a subscriber that only wakes its reader: one that
// Unsubscribe took back (waiters) when there is one.
func NewWaiter() *Subscriber { return waiters.Get().(*Subscriber) }

// waiters are waiters Unsubscribe took out of their task's set: no one
// sends to those or closes them any more, so they are reused, their
// channel drained, rather than allocated (three allocations) per send.
var waiters = sync.Pool{New: func() any { return &Subscriber{ch: make(chan Item, 1), lossy: true} }}

// C is the subscriber's channel; it is closed when the subscription ends
// (Unsubscribe, the task forgotten, or an overflow).
func (s *Subscriber) C() <-chan Item { return s.ch }

// Overflowed reports whether the subscription ended because its reader was
// slower than the agent.
func (s *Subscriber) Overflowed() bool { return s.overflow.Load() }

// play runs tl for e: steps without delay at the head run inline (the common
// fast path), the rest in a goroutine counted in Config.Players.
func (a *Agent) play(e *taskEntry, tl timeline.Timeline) {
	a.mu.Lock()
	e.stopPlayer()
	e.gen++
	gen := e.gen
	for _, st := range tl {
		if st.Kind == timeline.StepHoldStream {
			e.holdOpen = true
		}
	}
	a.mu.Unlock()
	i := 0
	for ; i < len(tl) && tl[i].After <= 0; i++ {
		if !a.apply(e, gen, tl[i]) {
			a.finish(e, gen)
			return
		}
	}
	if i == len(tl) {
		a.finish(e, gen)
		return
	}
	ctx, cancel := context.WithCancel(a.cfg.Context)
	a.mu.Lock()
	if e.gen != gen {
		a.mu.Unlock()
		cancel()
		return
	}
	e.cancelPlay, e.playing = cancel, true
	a.cfg.Players.Add(1)
	a.mu.Unlock()
	rest := slices.Clone(tl[i:]) // tl may be the caller's array on its stack
	go func() {
		defer a.cfg.Players.Done()
		defer cancel()
		for _, st := range rest {
			if st.After > 0 && !timeline.Sleep(ctx, a.cfg.Clock, st.After) {
				return
			}
			if !a.apply(e, gen, st) {
				break
			}
		}
		a.finish(e, gen)
	}()
}

func (e *taskEntry) stopPlayer() {
	if e.cancelPlay != nil {
		e.cancelPlay()
		e.cancelPlay = nil
	}
	e.playing = false
}

func (a *Agent) finish(e *taskEntry, gen int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if e.gen != gen {
		return
	}
	e.playing = false
	e.cancelPlay = nil
	e.broadcast(Item{PlayerDone: true})
}

// apply performs one step; it reports false when playing must stop. The
// event it emits goes to the push queue after the lock is released.
func (a *Agent) apply(e *taskEntry, gen int, st timeline.Step) bool {
	a.mu.Lock()
	ok, push := a.applyLocked(e, gen, st)
	a.mu.Unlock()
	if push != nil {
		a.push(push)
	}
	return ok
}

func (a *Agent) applyLocked(e *taskEntry, gen int, st timeline.Step) (bool, *pushItem) {
	if e.gen != gen {
		return false, nil
	}
	t := e.task
	taskID, ctxID := t.ID, t.ContextID
	if st.TaskID != "" {
		taskID = st.TaskID
	}
	if st.ContextID != "" {
		ctxID = st.ContextID
	}
	touchStore := !st.EventOnly && st.TaskID == ""
	// A task the store already forgot (evicted when terminal) may still
	// have a player: it no longer counts in the store's bounds.
	stored := touchStore && a.store.Tasks[t.ID] == e
	if stored {
		defer a.resize(e)
	}
	now := a.cfg.Clock.Now().UTC()
	// The journal stamps the event with the step's own time, not a second
	// reading of the clock.
	note := Note{Kind: NoteEvent, TaskID: taskID, ContextID: ctxID, Time: now}
	// The event is held by value and made a wire.Event only for those who
	// read it (see emitLocked).
	var ev pendingEvent
	switch st.Kind {
	case timeline.StepState:
		status := wire.TaskStatus{State: st.State, Timestamp: now}
		if st.Message != "" {
			status.Message = &wire.Message{MessageID: a.newIDLocked(), Role: wire.RoleAgent, TaskID: taskID, ContextID: ctxID,
				Parts: []wire.Part{wire.TextPart(st.Message)}}
		}
		if touchStore {
			if stored {
				a.store.NoteState(t.Status.State, status.State)
			}
			t.Status = status
			e.moves++
			if status.Message != nil {
				t.History = append(t.History, *status.Message)
			}
		}
		final := st.State.Terminal() || st.State.Interrupted()
		if st.Final != nil {
			final = *st.Final
		}
		ev.status = wire.StatusUpdate{TaskID: taskID, ContextID: ctxID, Status: status, Final: final}
		note.State = st.State
	case timeline.StepArtifact:
		if st.Artifact == nil {
			return true, nil
		}
		art := *st.Artifact
		if touchStore {
			merged := false
			for i := range t.Artifacts {
				if t.Artifacts[i].ArtifactID == art.ArtifactID {
					if st.Append {
						t.Artifacts[i].Parts = append(slices.Clone(t.Artifacts[i].Parts), art.Parts...)
					} else {
						t.Artifacts[i] = art
					}
					merged = true
				}
			}
			if !merged {
				t.Artifacts = append(t.Artifacts, art)
			}
		}
		ev.artifact = wire.ArtifactUpdate{TaskID: taskID, ContextID: ctxID, Artifact: art, Append: st.Append, LastChunk: st.LastChunk}
		ev.isArtifact = true
		note.Detail = "artifact " + art.ArtifactID
	case timeline.StepEndStream:
		a.record(Note{Kind: NoteEvent, TaskID: taskID, Detail: "end-stream"})
		e.broadcast(Item{EndStream: true})
		return true, nil
	case timeline.StepHoldStream:
		e.holdOpen = true
		return true, nil
	case timeline.StepStop:
		a.record(Note{Kind: NoteEvent, TaskID: taskID, Detail: "stop"})
		return false, nil
	default:
		return true, nil
	}
	a.record(note)
	return true, a.emitLocked(e, &ev)
}

// pendingEvent is a status or artifact update not yet made a wire.Event.
type pendingEvent struct {
	status     wire.StatusUpdate
	artifact   wire.ArtifactUpdate
	isArtifact bool
}

func (p *pendingEvent) event() wire.Event {
	if p.isArtifact {
		return wire.Event{Artifact: new(p.artifact)}
	}
	return wire.Event{Status: new(p.status)}
}

// emitLocked hands an event to e's subscribers and returns its push
// notification. A waiting unary send only needs the wake-up (it reads the
// task again), so when it is the only subscriber and no push config is
// set the event is never built: a step then costs no allocation for it.
func (a *Agent) emitLocked(e *taskEntry, p *pendingEvent) *pushItem {
	if len(e.push) == 0 && !e.streamed() {
		e.broadcast(Item{})
		return nil
	}
	ev := p.event()
	e.broadcast(Item{Event: &ev})
	return a.pushItemLocked(e, ev)
}

// streamed reports whether a subscriber of e reads its events (a stream,
// not a waiting send).
func (e *taskEntry) streamed() bool {
	for _, s := range e.subs.Items() {
		if !s.lossy {
			return true
		}
	}
	return false
}

func (e *taskEntry) broadcast(it Item) {
	e.subs.Keep(func(s *Subscriber) bool {
		select {
		case s.ch <- it:
			return true
		default:
			// A client that reads slower than the agent emits loses its
			// stream rather than stalling the task for everyone.
			if !s.lossy {
				s.overflow.Store(true)
				close(s.ch)
			}
			return s.lossy
		}
	})
}

func (e *taskEntry) closeSubs() {
	for _, s := range e.subs.Items() {
		close(s.ch)
	}
	e.subs.Clear()
}

// Subscribe attaches sub to task id and returns the task's snapshot and
// whether its player runs.
func (a *Agent) Subscribe(id string, sub *Subscriber) (*wire.Task, bool, *wire.Error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.store.Tasks[id]
	if !ok {
		return nil, false, wire.ErrTaskNotFound(id)
	}
	e.subs.Add(sub)
	return e.task.Clone(), e.playing, nil
}

// Unsubscribe detaches sub from task id and closes its channel.
func (a *Agent) Unsubscribe(id string, sub *Subscriber) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if e, ok := a.store.Tasks[id]; ok && e.subs.Remove(sub) {
		if !sub.lossy {
			close(sub.ch)
			return
		}
		select { // a wake-up the waiter did not read
		case <-sub.ch:
		default:
		}
		sub.taken = 0
		waiters.Put(sub)
	}
}
