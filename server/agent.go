package server

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/brianvoe/gofakeit/v6"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/cardsig"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// agent is one hosted fake agent: its card, its tasks and its seeded sources.
type agent struct {
	srv      *Server
	name     string
	index    int
	card     *cards.Card
	extended *cards.Card
	scripts  map[string]timeline.Timeline
	scripted []ScriptedTimeline
	seed     uint64

	bhv atomic.Pointer[behaviorSet]

	// ctx ends when the agent is removed (control API) or the server
	// closes: its players, waiting sends and open streams watch it.
	ctx  context.Context
	stop context.CancelFunc
	// dynamic agents were created through the control API and may be
	// removed; journalFrom is the journal sequence number before the agent
	// was created or last reset: its journal view starts after it.
	dynamic     bool
	journalFrom atomic.Int64

	mu    sync.Mutex
	rng   *rand.Rand
	faker *gofakeit.Faker
	// sentences is a pool of generated content, filled on first use: the
	// faker is too slow to call on every send.
	sentences []string
	tasks     map[string]*taskEntry
	order     []*taskEntry // creation order, oldest first
	calls     map[wire.Op]int
	pushSeq   int
	// created numbers tasks in creation order; ListTasks breaks ties on
	// it.
	created uint64
	// pages holds the ListTasks page tokens issued (listtasks.go).
	pages pageTokens
	// sinceSweep counts sends since evictLocked last swept the whole store.
	sinceSweep int
	// running counts the tasks not in a terminal state, and bytes the
	// content the stored tasks hold (store.go).
	running int
	bytes   int64
	// seenMsg maps the messageId of every message that started or
	// continued a task to that task, so a resent message is recognised
	// (idempotency.go).
	seenMsg map[string]string
	// cardSince is when the card configuration (behaviors included) was
	// last set; cardSeen the card last served per URL (cardcache.go).
	cardSince time.Time
	cardSeen  map[string]cardVersion
	// sigOnce derives the card-signing keys on first use (cardsign.go).
	sigOnce            sync.Once
	sigKey, sigExpired cardsig.Key
}

// taskEntry is a task and everything live about it. Guarded by agent.mu.
type taskEntry struct {
	seq     uint64
	task    *wire.Task
	skill   *cards.Skill
	created time.Time
	subs    map[*subscriber]struct{}
	// gen changes whenever the task's player is replaced or stopped, so a
	// stale player's steps are ignored.
	gen        int
	cancelPlay context.CancelFunc
	playing    bool
	holdOpen   bool
	push       []wire.PushConfig
	// dialect is the dialect the task was created in.
	dialect wire.Dialect
	// pushState queues the task's push notifications (push.go).
	pushState *taskPush
	// bytes is the task's content size as last counted (store.go).
	bytes int64
	// moves counts the status changes applied to the task, so a blocking
	// send can tell a state reached after its message from the one the
	// task was in when the message came.
	moves int64
}

// streamItem is what a subscriber receives. The event is held by pointer:
// every open stream buffers subscriberBuffer items, and a 16-byte item
// (rather than 40 with the event inline) keeps that buffer at 4 KiB.
type streamItem struct {
	ev         *wire.Event
	endStream  bool // StepEndStream: close now without another event
	playerDone bool
}

type subscriber struct {
	ch chan streamItem
	// lossy subscribers only need a wake-up (a waiting unary send re-reads
	// the task on each); a full buffer drops the item instead of closing.
	lossy    bool
	overflow atomic.Bool
	// taken is the task's moves when start took the message: a waiting
	// send settles only on a state reached after it.
	taken int64
}

const subscriberBuffer = 256

func newAgent(s *Server, ac AgentConfig, index int) (*agent, error) {
	h := fnv.New64a()
	_, _ = h.Write([]byte(ac.Name))
	seed := s.cfg.Seed ^ h.Sum64()
	card := ac.Card
	if card == nil {
		card = cards.Generate(ac.Name, s.cfg.Seed)
	} else {
		c := *card
		card = &c
	}
	if card.Dialect == "" {
		card.Dialect = wire.V10
	}
	if wire.CodecFor(card.Dialect) == nil {
		return nil, fmt.Errorf("card dialect %q is not one of 1.0, 0.3, 0.2, 0.1", card.Dialect)
	}
	if len(card.Skills) == 0 {
		return nil, fmt.Errorf("card declares no skills")
	}
	for id := range ac.Timelines {
		if card.Skill(id) == nil {
			return nil, fmt.Errorf("timeline for unknown skill %q", id)
		}
	}
	if err := checkScripts(card, ac.Scripts); err != nil {
		return nil, err
	}
	a := &agent{
		srv:      s,
		name:     ac.Name,
		index:    index,
		card:     card,
		extended: ac.ExtendedCard,
		scripts:  ac.Timelines,
		scripted: ac.Scripts,
		seed:     seed,
	}
	a.ctx, a.stop = context.WithCancel(s.ctx)
	a.resetLocked()
	a.setBehaviors(ac.Behaviors)
	return a, nil
}

func (a *agent) resetLocked() {
	a.rng = rand.New(rand.NewPCG(a.seed, a.seed>>7|1))
	a.faker = nil // seeded on first use: seeding costs more than the rest of newAgent
	a.sentences = nil
	a.tasks = map[string]*taskEntry{}
	a.seenMsg = map[string]string{}
	a.order = nil
	a.calls = map[wire.Op]int{}
	a.pushSeq = 0
	a.created = 0
	a.pages = pageTokens{}
	a.sinceSweep = 0
	a.running = 0
	a.bytes = 0
}

func (a *agent) reset() {
	a.mu.Lock()
	for _, e := range a.tasks {
		a.stopPlayerLocked(e)
		// A player whose timer fired as it was canceled must not apply
		// its step to the forgotten task (and journal it after the reset).
		e.gen++
		a.closeSubsLocked(e)
	}
	a.resetLocked()
	a.mu.Unlock()
	// Behaviors that remember tasks or count requests start over with the
	// agent, so a reset run repeats the first one.
	for _, b := range a.currentBehaviors() {
		if r, ok := b.(behaviors.Resetter); ok {
			r.Reset()
		}
	}
}

func (a *agent) setBehaviors(bs []behaviors.Behavior) {
	a.mu.Lock()
	a.cardSince = a.srv.clock.Now().UTC().Truncate(time.Second)
	a.mu.Unlock()
	a.bhv.Store(newBehaviorSet(bs))
}

func (a *agent) currentBehaviors() []behaviors.Behavior {
	if p := a.bhv.Load(); p != nil {
		return slices.Clone(p.list)
	}
	return nil
}

// newID returns a UUID-shaped id from the agent's seeded source.
func (a *agent) newIDLocked() string {
	hi, lo := a.rng.Uint64(), a.rng.Uint64()
	var b [16]byte
	for i := 0; i < 8; i++ {
		b[i] = byte(hi >> (56 - 8*i))
		b[8+i] = byte(lo >> (56 - 8*i))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	const hexdigits = "0123456789abcdef"
	out := make([]byte, 36)
	j := 0
	for i, v := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out[j] = '-'
			j++
		}
		out[j], out[j+1] = hexdigits[v>>4], hexdigits[v&0x0f]
		j += 2
	}
	return string(out)
}

// sentenceLocked returns a seeded sentence of generated content.
func (a *agent) sentenceLocked() string {
	if a.sentences == nil {
		if a.faker == nil {
			a.faker = gofakeit.NewUnlocked(int64(a.seed))
		}
		a.sentences = make([]string, 32)
		for i := range a.sentences {
			a.sentences[i] = a.faker.Sentence(12)
		}
	}
	return a.sentences[a.rng.IntN(len(a.sentences))]
}

// exchange builds the behaviors' view of a request and applies the agent's
// behaviors to it; the report says which acted and which were out of scope.
func (a *agent) exchange(op wire.Op, req *wire.Request, httpReq exchangeHTTP) (*behaviors.Exchange, behaviorReport) {
	bs := a.bhv.Load()
	a.mu.Lock()
	a.calls[op]++
	call := a.calls[op]
	a.mu.Unlock()
	x := &behaviors.Exchange{
		Agent:   a.name,
		Op:      op,
		Request: req,
		HTTP:    httpReq.r,
		Card:    a.card,
		Call:    call,
		Now:     a.srv.clock.Now(),
		Clock:   a.srv.clock,
	}
	if req != nil {
		x.Dialect, x.Binding = req.Dialect, req.Binding
		x.Skill = a.skillFor(req.Message)
	}
	if bs == nil || len(bs.list) == 0 {
		return x, behaviorReport{}
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(op))
	x.Rand = rand.New(rand.NewPCG(a.seed^h.Sum64(), uint64(call)))
	return x, bs.apply(x)
}

// skillFor picks the skill a message addresses: metadata "skillId" (or
// "skill") when it names one, otherwise the first skill that needs no input,
// otherwise the first skill.
func (a *agent) skillFor(m *wire.Message) *cards.Skill {
	if m != nil {
		for _, k := range []string{"skillId", "skill"} {
			if v, ok := m.Metadata[k].(string); ok {
				if s := a.card.Skill(v); s != nil {
					return s
				}
			}
		}
	}
	for i := range a.card.Skills {
		if !a.card.Skills[i].NeedsInput {
			return &a.card.Skills[i]
		}
	}
	return &a.card.Skills[0]
}

// decide takes the honest decision for a message, then lets the behaviors
// change it.
func (a *agent) decide(x *behaviors.Exchange, req *wire.Request) (timeline.Decision, *wire.Task) {
	m := req.Message
	var d timeline.Decision
	var existing *wire.Task
	a.mu.Lock()
	if dup, ok := a.duplicateLocked(m); ok {
		d = dup
		if e := a.tasks[dup.TaskID]; e != nil {
			existing = e.task.Clone()
		}
	} else if m.TaskID != "" {
		e, ok := a.tasks[m.TaskID]
		switch {
		case !ok && req.Dialect == wire.V01:
			// v0.1 let the client choose the task id.
			d = timeline.Decision{Kind: timeline.DecideNew, TaskID: m.TaskID, ContextID: m.ContextID, Reason: "v0.1 send with a new client-chosen task id"}
		case !ok:
			d = timeline.Decision{Kind: timeline.DecideReject, Err: wire.ErrTaskNotFound(m.TaskID), Reason: "message names an unknown task"}
		default:
			existing = e.task.Clone()
			switch {
			case m.ContextID != "" && m.ContextID != e.task.ContextID:
				d = timeline.Decision{Kind: timeline.DecideReject, Reason: "contextId differs from the task's",
					Err: wire.ErrInvalidParams("message.contextId", fmt.Sprintf("%q does not match the context %q of task %s", m.ContextID, e.task.ContextID, m.TaskID))}
			case e.task.Status.State.Terminal():
				d = timeline.Decision{Kind: timeline.DecideReject, Reason: "message to a terminal task",
					Err: wire.Errorf(wire.CodeUnsupportedOperation, "task %s is %s: a terminal task accepts no more messages; start a new task in context %s", m.TaskID, e.task.Status.State, e.task.ContextID).With("taskId", m.TaskID)}
			default:
				d = timeline.Decision{Kind: timeline.DecideContinue, TaskID: m.TaskID, ContextID: e.task.ContextID, Reason: "continuation of " + string(e.task.Status.State) + " task"}
				a.scriptedDecision(&d, e.skill, m)
			}
		}
	} else {
		d = timeline.Decision{Kind: timeline.DecideNew, ContextID: m.ContextID, Reason: "new message"}
	}
	a.mu.Unlock()
	for _, f := range x.Hooks().Decide {
		f(&d, existing)
	}
	return d, existing
}

// honestPlan is the timeline an honest agent plays for a decision.
func (a *agent) honestPlan(d timeline.Decision, skill *cards.Skill, prior wire.TaskState) timeline.Timeline {
	delay := a.srv.cfg.StepDelay
	if d.Kind == timeline.DecideNew {
		if tl, ok := a.scripts[skill.ID]; ok {
			return tl.Clone()
		}
	}
	tl := make(timeline.Timeline, 0, 4)
	if d.Kind == timeline.DecideNew {
		tl = append(tl, timeline.Step{Kind: timeline.StepState, State: wire.StateSubmitted})
		tl = append(tl, timeline.Step{Kind: timeline.StepState, State: wire.StateWorking, After: delay})
		if skill.NeedsInput {
			prompt := skill.InputPrompt
			if prompt == "" {
				prompt = "More input is needed for " + skill.Name + "."
			}
			return append(tl, timeline.Step{Kind: timeline.StepState, State: wire.StateInputRequired, Message: prompt, After: delay})
		}
	} else if prior != wire.StateWorking {
		tl = append(tl, timeline.Step{Kind: timeline.StepState, State: wire.StateWorking})
	} else {
		return nil
	}
	a.mu.Lock()
	art := &wire.Artifact{
		ArtifactID: a.newIDLocked(),
		Name:       skill.ID + "-result",
		Parts:      []wire.Part{wire.TextPart(skill.Name + ": " + a.sentenceLocked())},
	}
	a.mu.Unlock()
	tl = append(tl, timeline.Step{Kind: timeline.StepArtifact, Artifact: art, LastChunk: true, After: delay})
	return append(tl, timeline.Step{Kind: timeline.StepState, State: wire.StateCompleted})
}

// start creates or continues the task of a decision and starts its timeline.
// sub, when not nil, is subscribed before the first step so a stream misses
// nothing. It returns the task's id.
//
// opening, when not nil, receives the task as it stands once the message is
// taken and before any step plays: the first event of a stream that
// continues a task, so the stream shows every state the continuation goes
// through.
func (a *agent) start(req *wire.Request, x *behaviors.Exchange, d timeline.Decision, sub *subscriber, opening **wire.Task) (string, *wire.Error) {
	m := req.Message
	if pc := req.Config.PushConfig; pc != nil {
		if err := a.srv.checkPushURL(pc.URL, pushURLField(req.Dialect, true)); err != nil {
			return "", err
		}
	}
	skill := x.Skill
	if skill == nil {
		skill = a.skillFor(m)
	}
	a.mu.Lock()
	var e *taskEntry
	var prior wire.TaskState
	// cont is the skill of the live task the message names: continuation
	// scripts match on it.
	var cont *cards.Skill
	if named := a.tasks[m.TaskID]; m.TaskID != "" && named != nil && !named.task.Status.State.Terminal() {
		cont = named.skill
	}
	switch d.Kind {
	case timeline.DecideContinue:
		e = a.tasks[d.TaskID]
		if e == nil {
			a.mu.Unlock()
			return "", wire.ErrTaskNotFound(d.TaskID)
		}
		prior = e.task.Status.State
		msg := *m
		msg.TaskID, msg.ContextID = e.task.ID, e.task.ContextID
		if msg.MessageID == "" {
			msg.MessageID = a.newIDLocked()
		}
		e.task.History = append(e.task.History, msg)
	case timeline.DecideNew:
		id := d.TaskID
		if id == "" || a.tasks[id] != nil {
			id = a.newIDLocked()
		}
		ctxID := d.ContextID
		if ctxID == "" {
			ctxID = a.newIDLocked()
		}
		msg := *m
		msg.TaskID, msg.ContextID = id, ctxID
		if msg.MessageID == "" {
			// v0.1 messages have no id, but every later dialect requires
			// one when the task is read through it.
			msg.MessageID = a.newIDLocked()
		}
		now := a.srv.clock.Now().UTC()
		a.created++
		e = &taskEntry{
			seq: a.created,
			task: &wire.Task{ID: id, ContextID: ctxID,
				Status:  wire.TaskStatus{State: wire.StateSubmitted, Timestamp: now},
				History: []wire.Message{msg}},
			skill:   skill,
			created: now,
			dialect: req.Dialect,
			subs:    map[*subscriber]struct{}{},
		}
		if req.Config.PushConfig != nil {
			pc := *req.Config.PushConfig
			pc.TaskID = id
			if pc.ID == "" {
				a.pushSeq++
				pc.ID = "push-" + strconv.Itoa(a.pushSeq)
			}
			e.push = append(e.push, pc)
		}
		a.initPushLocked(e, x)
		a.tasks[id] = e
		a.order = append(a.order, e)
		a.running++
		a.evictLocked()
	default:
		a.mu.Unlock()
		return "", wire.Errorf(wire.CodeInternal, "decision %q cannot start a task", d.Kind)
	}
	a.rememberMessageLocked(m.MessageID, e.task.ID)
	a.resizeLocked(e)
	a.boundLocked(e)
	if sub != nil {
		e.subs[sub] = struct{}{}
		sub.taken = e.moves
	}
	if opening != nil {
		*opening = e.task.Clone()
	}
	a.mu.Unlock()

	tl, scripted := a.scriptedPlan(d, m, skill, cont)
	if !scripted {
		tl = a.honestPlan(d, skill, prior)
	}
	for _, f := range x.Hooks().Plan {
		tl = f(tl)
	}
	if len(tl) > 0 {
		a.play(e, tl)
	} else if sub != nil {
		// Nothing new to play: a running player keeps the task going and
		// will say when it ends; without one, say it now.
		a.mu.Lock()
		if !e.playing {
			select {
			case sub.ch <- streamItem{playerDone: true}:
			default:
			}
		}
		a.mu.Unlock()
	}
	return e.task.ID, nil
}

// evictLocked forgets the oldest terminal tasks beyond the retention. Tasks
// are kept in creation order, so the oldest sit at the front: the common case
// drops one from the front, and a still-running task at the front is skipped
// by a bounded look-ahead, so a send never pays for the number of tasks.
// When the look-ahead finds only running tasks, a full sweep runs, but at
// most once every retention/4 sends, which keeps the stored terminal tasks
// within 1.25 × the retention at a constant amortised cost.
func (a *agent) evictLocked() {
	limit := a.srv.cfg.TaskRetention
	for len(a.order) > limit {
		evicted := false
		for i := 0; i < len(a.order) && i < evictLookAhead; i++ {
			e := a.order[i]
			if e.evictable() {
				delete(a.tasks, e.task.ID)
				a.bytes -= e.bytes
				copy(a.order[1:i+1], a.order[:i])
				a.order[0] = nil
				a.order = a.order[1:]
				evicted = true
				break
			}
		}
		if !evicted {
			a.sweepLocked(limit)
			return
		}
	}
}

// sweepLocked forgets the oldest evictable tasks anywhere in the store until
// it is within limit, unless it swept less than limit/4 sends ago.
func (a *agent) sweepLocked(limit int) {
	a.sinceSweep++
	if a.sinceSweep < max(limit/4, 1) {
		return
	}
	a.sinceSweep = 0
	excess := len(a.order) - limit
	kept := a.order[:0]
	for _, e := range a.order {
		if excess > 0 && e.evictable() {
			delete(a.tasks, e.task.ID)
			a.bytes -= e.bytes
			excess--
			continue
		}
		kept = append(kept, e)
	}
	clear(a.order[len(kept):])
	a.order = kept
}

func (e *taskEntry) evictable() bool { return e.task.Status.State.Terminal() && len(e.subs) == 0 }

// evictLookAhead bounds the search for an evictable task past running ones.
const evictLookAhead = 64

// play runs tl for e: steps without delay at the head run inline (the common
// fast path), the rest in a goroutine that the server's Close waits for.
func (a *agent) play(e *taskEntry, tl timeline.Timeline) {
	a.mu.Lock()
	a.stopPlayerLocked(e)
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
	ctx, cancel := context.WithCancel(a.ctx)
	a.mu.Lock()
	if e.gen != gen {
		a.mu.Unlock()
		cancel()
		return
	}
	e.cancelPlay, e.playing = cancel, true
	a.srv.players.Add(1)
	a.mu.Unlock()
	rest := tl[i:]
	go func() {
		defer a.srv.players.Done()
		defer cancel()
		for _, st := range rest {
			if st.After > 0 && !timeline.Sleep(ctx, a.srv.clock, st.After) {
				return
			}
			if !a.apply(e, gen, st) {
				break
			}
		}
		a.finish(e, gen)
	}()
}

func (a *agent) stopPlayerLocked(e *taskEntry) {
	if e.cancelPlay != nil {
		e.cancelPlay()
		e.cancelPlay = nil
	}
	e.playing = false
}

func (a *agent) finish(e *taskEntry, gen int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if e.gen != gen {
		return
	}
	e.playing = false
	e.cancelPlay = nil
	a.broadcastLocked(e, streamItem{playerDone: true})
}

// apply performs one step; it reports false when playing must stop.
func (a *agent) apply(e *taskEntry, gen int, st timeline.Step) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if e.gen != gen {
		return false
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
	stored := touchStore && a.tasks[t.ID] == e
	if stored {
		defer a.resizeLocked(e)
	}
	now := a.srv.clock.Now().UTC()
	switch st.Kind {
	case timeline.StepState:
		status := wire.TaskStatus{State: st.State, Timestamp: now}
		if st.Message != "" {
			status.Message = &wire.Message{MessageID: a.newIDLocked(), Role: wire.RoleAgent, TaskID: taskID, ContextID: ctxID,
				Parts: []wire.Part{wire.TextPart(st.Message)}}
		}
		if touchStore {
			if stored {
				a.noteStateLocked(t.Status.State, status.State)
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
		ev := wire.Event{Status: &wire.StatusUpdate{TaskID: taskID, ContextID: ctxID, Status: status, Final: final}}
		a.srv.record(Entry{Agent: a.name, Kind: EntryEvent, TaskID: taskID, ContextID: ctxID, State: st.State})
		a.broadcastLocked(e, streamItem{ev: &ev})
		a.pushLocked(e, ev)
	case timeline.StepArtifact:
		if st.Artifact == nil {
			return true
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
		ev := wire.Event{Artifact: &wire.ArtifactUpdate{TaskID: taskID, ContextID: ctxID, Artifact: art, Append: st.Append, LastChunk: st.LastChunk}}
		a.srv.record(Entry{Agent: a.name, Kind: EntryEvent, TaskID: taskID, ContextID: ctxID, Detail: "artifact " + art.ArtifactID})
		a.broadcastLocked(e, streamItem{ev: &ev})
		a.pushLocked(e, ev)
	case timeline.StepEndStream:
		a.srv.record(Entry{Agent: a.name, Kind: EntryEvent, TaskID: taskID, Detail: "end-stream"})
		a.broadcastLocked(e, streamItem{endStream: true})
	case timeline.StepHoldStream:
		e.holdOpen = true
	case timeline.StepStop:
		a.srv.record(Entry{Agent: a.name, Kind: EntryEvent, TaskID: taskID, Detail: "stop"})
		return false
	}
	return true
}

func (a *agent) broadcastLocked(e *taskEntry, it streamItem) {
	for s := range e.subs {
		select {
		case s.ch <- it:
		default:
			if s.lossy {
				continue
			}
			// A client that reads slower than the agent emits loses its
			// stream rather than stalling the task for everyone.
			s.overflow.Store(true)
			delete(e.subs, s)
			close(s.ch)
		}
	}
}

func (a *agent) closeSubsLocked(e *taskEntry) {
	for s := range e.subs {
		delete(e.subs, s)
		close(s.ch)
	}
}

func newSubscriber() *subscriber { return &subscriber{ch: make(chan streamItem, subscriberBuffer)} }

// newWaiter returns a subscriber that only wakes its reader.
func newWaiter() *subscriber { return &subscriber{ch: make(chan streamItem, 1), lossy: true} }

// subscribe attaches sub to task id and returns the task's snapshot.
func (a *agent) subscribe(id string, sub *subscriber) (*wire.Task, bool, *wire.Error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.tasks[id]
	if !ok {
		return nil, false, wire.ErrTaskNotFound(id)
	}
	e.subs[sub] = struct{}{}
	return e.task.Clone(), e.playing, nil
}

func (a *agent) unsubscribe(id string, sub *subscriber) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if e, ok := a.tasks[id]; ok {
		if _, ok := e.subs[sub]; ok {
			delete(e.subs, sub)
			close(sub.ch)
		}
	}
}

// state returns the task's state, how many status changes it went through
// and whether its player runs, without copying the task.
func (a *agent) state(id string) (st wire.TaskState, moves int64, playing, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.tasks[id]
	if !ok {
		return "", 0, false, false
	}
	return e.task.Status.State, e.moves, e.playing, true
}

// taskDialect returns the dialect task id was created in, or "".
func (a *agent) taskDialect(id string) wire.Dialect {
	a.mu.Lock()
	defer a.mu.Unlock()
	if e, ok := a.tasks[id]; ok {
		return e.dialect
	}
	return ""
}

// snapshot returns a copy of the task, or nil.
func (a *agent) snapshot(id string) *wire.Task {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.tasks[id]
	if !ok {
		return nil
	}
	return e.task.Clone()
}

// holdsStreams reports whether the task's timeline asked to keep its streams
// open after the end.
func (a *agent) holdsStreams(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.tasks[id]
	return ok && e.holdOpen
}

func (a *agent) taskSnapshot(id string, historyLength *int) (*wire.Task, *wire.Error) {
	t := a.snapshot(id)
	if t == nil {
		return nil, wire.ErrTaskNotFound(id)
	}
	return trimHistory(t, historyLength), nil
}

func trimHistory(t *wire.Task, n *int) *wire.Task {
	if n == nil || *n < 0 {
		return t
	}
	if *n == 0 {
		t.History = nil
	} else if len(t.History) > *n {
		t.History = t.History[len(t.History)-*n:]
	}
	return t
}

// cancel moves a non-terminal task to canceled.
func (a *agent) cancel(x *behaviors.Exchange, id string) (*wire.Task, *wire.Error) {
	d := timeline.Decision{Kind: timeline.DecideCancel, TaskID: id}
	a.mu.Lock()
	e, ok := a.tasks[id]
	var existing *wire.Task
	if ok {
		existing = e.task.Clone()
	}
	a.mu.Unlock()
	for _, f := range x.Hooks().Decide {
		f(&d, existing)
	}
	if !ok {
		return nil, wire.ErrTaskNotFound(id)
	}
	if d.Kind == timeline.DecideIgnore {
		return existing, nil
	}
	if existing.Status.State.Terminal() {
		return nil, wire.Errorf(wire.CodeTaskNotCancelable, "task %s is %s and cannot be canceled", id, existing.Status.State).With("taskId", id)
	}
	a.mu.Lock()
	a.stopPlayerLocked(e)
	e.gen++
	gen := e.gen
	a.mu.Unlock()
	a.apply(e, gen, timeline.Step{Kind: timeline.StepState, State: wire.StateCanceled})
	a.finish(e, gen)
	t := a.snapshot(id)
	return t, nil
}

// Push-notification configs (stored; delivery is the push issue's work).

func (a *agent) setPush(pc wire.PushConfig) (*wire.PushConfig, *wire.Error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.tasks[pc.TaskID]
	if !ok {
		return nil, wire.ErrTaskNotFound(pc.TaskID)
	}
	if pc.ID == "" {
		a.pushSeq++
		pc.ID = "push-" + strconv.Itoa(a.pushSeq)
	}
	for i := range e.push {
		if e.push[i].ID == pc.ID {
			e.push[i] = pc
			return &pc, nil
		}
	}
	if len(e.push) >= MaxPushConfigsPerTask {
		return nil, wire.ErrInvalidParams("pushNotificationConfig", "the task already has "+strconv.Itoa(MaxPushConfigsPerTask)+" push configs, the most a task may hold; delete one or replace one by its id")
	}
	e.push = append(e.push, pc)
	return &pc, nil
}

func (a *agent) pushConfigs(taskID string) ([]wire.PushConfig, *wire.Error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.tasks[taskID]
	if !ok {
		return nil, wire.ErrTaskNotFound(taskID)
	}
	return slices.Clone(e.push), nil
}

func (a *agent) getPush(taskID, id string) (*wire.PushConfig, *wire.Error) {
	pcs, err := a.pushConfigs(taskID)
	if err != nil {
		return nil, err
	}
	for _, pc := range pcs {
		if id == "" || pc.ID == id {
			return &pc, nil
		}
	}
	// Spec §3.1.8: a config that does not exist is TaskNotFoundError.
	return nil, wire.Errorf(wire.CodeTaskNotFound, "task %s has no push notification config %q", taskID, id).With("taskId", taskID).With("configId", id)
}

func (a *agent) deletePush(taskID, id string) *wire.Error {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.tasks[taskID]
	if !ok {
		return wire.ErrTaskNotFound(taskID)
	}
	// Delete is idempotent: an unknown config id is not an error.
	e.push = slices.DeleteFunc(e.push, func(pc wire.PushConfig) bool { return pc.ID == id })
	return nil
}
