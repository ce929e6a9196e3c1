package engine

import (
	"context"

	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/engine/internal/gate"
	"github.com/a2amock/a2amock/engine/internal/taskstore"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// Gate refuses operations the card does not declare, as v1.0 requires
// (§4 capability gates); the same rule is applied to every dialect.
func (a *Agent) Gate(op wire.Op) *wire.Error {
	return gate.Op(a.cfg.Card.Capabilities, a.cfg.Extended != nil, op)
}

// GateRequest is Gate for a decoded request: a send whose configuration
// asks for push notifications is refused by an agent whose card does not
// declare them, instead of delivering pushes it said it does not support.
func (a *Agent) GateRequest(req *wire.Request) *wire.Error {
	if err := a.Gate(req.Op); err != nil {
		return err
	}
	if (req.Op == wire.OpSend || req.Op == wire.OpStream) && req.Config.PushConfig != nil && !a.cfg.Card.Capabilities.PushNotifications {
		return wire.Errorf(wire.CodePushNotSupported, "push notifications are not supported: the agent card does not declare capabilities.pushNotifications, and the message's configuration asks for them")
	}
	return nil
}

// Unary answers every non-streaming operation but GetExtendedAgentCard
// (rendering a card is the transport's: it names the transport's URLs),
// after the capability gate.
func (a *Agent) Unary(ctx context.Context, req *wire.Request, x *core.Exchange) (*wire.Result, *wire.Error) {
	if err := a.GateRequest(req); err != nil {
		return nil, err
	}
	switch req.Op {
	case wire.OpSend:
		return a.Send(ctx, req, x)
	case wire.OpGetTask:
		t, err := a.TaskSnapshot(req.TaskID, req.HistoryLength)
		if err != nil {
			return nil, err
		}
		return &wire.Result{Task: t}, nil
	case wire.OpListTasks:
		p, err := a.List(req.List)
		if err != nil {
			return nil, err
		}
		return &wire.Result{Page: p}, nil
	case wire.OpCancelTask:
		t, err := a.Cancel(x, req.TaskID)
		if err != nil {
			return nil, err
		}
		return &wire.Result{Task: t}, nil
	case wire.OpSetPushConfig:
		if req.PushConfig == nil {
			return nil, wire.ErrInvalidParams("pushNotificationConfig", "is required")
		}
		if err := a.checkPushURL(req.PushConfig.URL, req.Dialect, false); err != nil {
			return nil, err
		}
		pc, err := a.SetPush(*req.PushConfig)
		if err != nil {
			return nil, err
		}
		return &wire.Result{PushConfig: pc}, nil
	case wire.OpGetPushConfig:
		pc, err := a.GetPush(req.TaskID, req.PushConfigID)
		if err != nil {
			return nil, err
		}
		return &wire.Result{PushConfig: pc}, nil
	case wire.OpListPushConfigs:
		pcs, next, err := a.PushConfigs(req.TaskID, req.List)
		if err != nil {
			return nil, err
		}
		return &wire.Result{PushConfigs: pcs, NextPushConfigsToken: next}, nil
	case wire.OpDeletePush:
		if err := a.DeletePush(req.TaskID, req.PushConfigID); err != nil {
			return nil, err
		}
		return &wire.Result{Empty: true}, nil
	}
	return nil, wire.Errorf(wire.CodeMethodNotFound, "method not found: %s", req.Method)
}

func (a *Agent) checkPushURL(raw string, d wire.Dialect, inline bool) *wire.Error {
	if a.cfg.CheckPushURL == nil {
		return nil
	}
	field := wire.Describe(d).PushURLField
	if inline {
		field = wire.Describe(d).InlinePushURLField
	}
	return a.cfg.CheckPushURL(raw, field)
}

// Send answers a unary send: it waits until the task is terminal or
// interrupted (or its timeline ran out) unless the client asked to return
// immediately.
func (a *Agent) Send(ctx context.Context, req *wire.Request, x *core.Exchange) (*wire.Result, *wire.Error) {
	d, _ := a.Decide(x, req)
	switch d.Kind {
	case timeline.DecideReject:
		return nil, d.Err
	case timeline.DecideMessage:
		return &wire.Result{Message: a.ReplyMessage(req.Message)}, nil
	case timeline.DecideDuplicate:
		return a.answerDuplicate(ctx, req, d.TaskID)
	}
	sub := NewWaiter()
	id, err := a.Start(req, x, d, sub, nil)
	if err != nil {
		return nil, err
	}
	defer a.Unsubscribe(id, sub)
	if !req.Config.ReturnImmediately {
		a.waitSettled(ctx, id, sub, sub.taken)
	}
	if x.Hooks().Push.BeforeReply {
		a.waitFirstPush(ctx, id)
	}
	t, terr := a.TaskSnapshot(id, req.Config.HistoryLength)
	if terr != nil {
		return nil, terr
	}
	return &wire.Result{Task: t}, nil
}

// waitSettled returns once the task is terminal, or interrupted in a state
// it reached after its first taken status changes (v1.0 SendMessage: a
// blocking send waits for the task to reach a terminal or interrupted state
// after the message; the input-required a continuation answers is not
// one), or once its player has stopped, the client has gone or the agent
// ends. taken < 0 accepts the state the task is in. sub was attached before
// the task's first step and Start has returned, so the playing flag is
// settled: a player either ran inline or runs in its goroutine.
func (a *Agent) waitSettled(ctx context.Context, id string, sub *Subscriber, taken int64) {
	for {
		st, moves, playing, ok := a.state(id)
		if !ok || st.Terminal() || st.Interrupted() && moves > taken || !playing {
			return
		}
		select {
		case _, ok := <-sub.ch:
			if !ok {
				return
			}
		case <-ctx.Done():
			return
		case <-a.cfg.Context.Done():
			return
		}
	}
}

// Start creates or continues the task of a decision and starts its
// timeline. sub, when not nil, is subscribed before the first step so a
// stream misses nothing. It returns the task's id.
//
// opening, when not nil, receives the task as it stands once the message is
// taken and before any step plays: the first event of a stream that
// continues a task, so the stream shows every state the continuation goes
// through.
func (a *Agent) Start(req *wire.Request, x *core.Exchange, d timeline.Decision, sub *Subscriber, opening **wire.Task) (string, *wire.Error) {
	m := req.Message
	if pc := req.Config.PushConfig; pc != nil {
		if err := a.checkPushURL(pc.URL, req.Dialect, true); err != nil {
			return "", err
		}
	}
	skill := x.Skill
	if skill == nil {
		skill = a.SkillFor(m)
	}
	a.mu.Lock()
	var e *taskEntry
	var prior wire.TaskState
	// cont is the skill of the live task the message names: continuation
	// scripts match on it.
	var cont *cards.Skill
	if named, ok := a.store.Named(m.TaskID); ok && named != nil && !named.task.Status.State.Terminal() {
		cont = named.skill
	}
	var dropped []Note
	switch d.Kind {
	case timeline.DecideContinue:
		e = a.store.Tasks[d.TaskID]
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
		e = a.newTaskLocked(req, x, d, skill)
		a.store.Add(e)
		a.store.Evict(a.cfg.Limits.TaskRetention)
	default:
		a.mu.Unlock()
		return "", wire.Errorf(wire.CodeInternal, "decision %q cannot start a task", d.Kind)
	}
	a.rememberMessageLocked(m.MessageID, e.task.ID)
	a.resize(e)
	lim := a.cfg.Limits
	for _, d := range a.store.Bound(e, taskstore.Limits{TaskRetention: lim.TaskRetention, MaxRunningTasks: lim.MaxRunningTasks, TaskRetentionBytes: lim.TaskRetentionBytes}) {
		dropped = append(dropped, Note{Kind: NoteDropped, TaskID: d.Task.ID, ContextID: d.Task.ContextID, State: d.Task.Status.State, Detail: d.Why})
	}
	for _, n := range dropped {
		a.record(n)
	}
	if sub != nil {
		e.subs.Add(sub)
		sub.taken = e.moves
	}
	if opening != nil {
		*opening = e.task.Clone()
	}
	a.mu.Unlock()

	var buf [4]timeline.Step // the honest plan's room (plan.AppendHonestPlan)
	tl := a.plan(x, d, m, skill, cont, prior, buf[:0])
	if len(tl) > 0 {
		a.play(e, tl)
	} else if sub != nil {
		// Nothing new to play: a running player keeps the task going and
		// will say when it ends; without one, say it now.
		a.mu.Lock()
		if !e.playing {
			select {
			case sub.ch <- Item{PlayerDone: true}:
			default:
			}
		}
		a.mu.Unlock()
	}
	return e.task.ID, nil
}

// newTaskLocked builds the entry of a new task for a decision.
func (a *Agent) newTaskLocked(req *wire.Request, x *core.Exchange, d timeline.Decision, skill *cards.Skill) *taskEntry {
	m := req.Message
	id := d.TaskID
	if id == "" || a.store.Tasks[id] != nil {
		id = a.newIDLocked()
	}
	ctxID := d.ContextID
	if ctxID == "" {
		ctxID = a.newIDLocked()
	}
	msg := *m
	msg.TaskID, msg.ContextID = id, ctxID
	if msg.MessageID == "" {
		// v0.1 messages have no id, but every later dialect requires one
		// when the task is read through it.
		msg.MessageID = a.newIDLocked()
	}
	now := a.cfg.Clock.Now().UTC()
	e := &taskEntry{skill: skill, created: now, dialect: req.Dialect}
	e.own.history[0] = msg
	e.own.task = wire.Task{ID: id, ContextID: ctxID,
		Status:  wire.TaskStatus{State: wire.StateSubmitted, Timestamp: now},
		History: e.own.history[:]}
	e.task = &e.own.task
	if req.Config.PushConfig != nil {
		pc := *req.Config.PushConfig
		pc.TaskID = id
		if pc.ID == "" {
			pc.ID = a.newPushIDLocked()
		}
		e.push = append(e.push, pc)
	}
	e.initPush(x)
	return e
}

// Cancel moves a non-terminal task to canceled.
func (a *Agent) Cancel(x *core.Exchange, id string) (*wire.Task, *wire.Error) {
	d := timeline.Decision{Kind: timeline.DecideCancel, TaskID: id}
	a.mu.Lock()
	e, ok := a.store.Tasks[id]
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
	e.stopPlayer()
	e.gen++
	gen := e.gen
	a.mu.Unlock()
	a.apply(e, gen, timeline.Step{Kind: timeline.StepState, State: wire.StateCanceled})
	a.finish(e, gen)
	return a.Snapshot(id), nil
}
