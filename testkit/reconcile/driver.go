package reconcile

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// SendOptions are the options of a unary send.
type SendOptions struct {
	// ReturnImmediately asks the agent to answer as soon as the task
	// exists, so the client waits on its own clock rather than inside a
	// blocking call it cannot bound.
	ReturnImmediately bool
	// AcceptedOutputModes are the media types the client accepts.
	AcceptedOutputModes []string
}

// Agent is what the driver talks through; a wire client of any binding and
// dialect implements it.
type Agent interface {
	// Send is a unary send; it returns the task as answered.
	Send(ctx context.Context, msg *wire.Message, opts SendOptions) (*wire.Task, error)
	// Stream sends and returns the event stream; it may return
	// ErrNotSupported. The sequence must end when ctx is canceled.
	Stream(ctx context.Context, msg *wire.Message) (iter.Seq2[wire.Event, error], error)
	// GetTask returns the current task.
	GetTask(ctx context.Context, id string) (*wire.Task, error)
	// CancelTask cancels the task and returns it.
	CancelTask(ctx context.Context, id string) (*wire.Task, error)
}

// Errors of the driver. A contract violation is always a *DivergenceError.
var (
	// ErrNotSupported is what an Agent returns for an operation it lacks.
	ErrNotSupported = errors.New("reconcile: operation not supported by the agent")
	// ErrUnknownSkill: the card does not list the skill (routing trusts
	// the card).
	ErrUnknownSkill = errors.New("reconcile: skill not declared by the card")
	// ErrInputModeNotDeclared: the input has a part whose media type the
	// skill does not declare.
	ErrInputModeNotDeclared = errors.New("reconcile: input mode not declared by the skill")
	// ErrNoInput: the agent asked for input and followUp had none; the task
	// was canceled.
	ErrNoInput = errors.New("reconcile: agent asked for input and no follow-up was available")
	// ErrTooManyTurns: the agent asked for input more than MaxTurns times.
	ErrTooManyTurns = errors.New("reconcile: too many input-required turns")
	// ErrAuthRequired: the agent asked for authentication, which the
	// driver cannot give; the task was canceled.
	ErrAuthRequired = errors.New("reconcile: agent requires authentication")
	// ErrNoTask: the agent answered without a task.
	ErrNoTask = errors.New("reconcile: agent answered without a task")
	// ErrUnresolved: the re-issued one-shot send still did not resolve.
	ErrUnresolved = errors.New("reconcile: one-shot re-issue did not resolve the task")
	// ErrNoAck: the stream produced no task before the deadline.
	ErrNoAck = errors.New("reconcile: no task acknowledged before the deadline")
)

// errReissue asks Run to re-issue as a one-shot send.
var errReissue = errors.New("reissue")

// Driver is the reconciling client: it trusts the card for routing and
// only observed states for lifecycle decisions. Every wait is bounded on
// Clock. A Driver may run several tasks at once if its Ledger is shared.
type Driver struct {
	Agent Agent
	// Card is the declared view of the agent's card.
	Card Declared
	// Ledger records what the driver observes; nil makes a new one per
	// Run, returned in the Result.
	Ledger *Ledger
	// Clock measures every wait; nil is the wall clock.
	Clock timeline.Clock
	// PollInterval is the pause between GetTask polls; default 1s.
	PollInterval time.Duration
	// WorkingDeadline bounds how long a task may stay non-terminal after
	// the agent last took it over; default DefaultWorkingDeadline.
	WorkingDeadline time.Duration
	// MaxTurns bounds the input-required answers per task; default 8.
	MaxTurns int
	// Poll makes the driver send unary and poll even when the card
	// declares streaming.
	Poll bool
	// CancelTimeout bounds the CancelTask Run sends for its task when the
	// caller's context ends the run before the task ended; default 5s.
	CancelTimeout time.Duration
}

// Result is what Run observed of the task it drove (the re-issued one, after
// a one-shot re-issue).
type Result struct {
	// Key is the ledger key of the task.
	Key       string
	TaskID    string
	ContextID string
	State     wire.TaskState
	Outcome   Outcome
	// Downgrades are the expectation downgrades applied, in order.
	Downgrades []Verdict
	// Reissued is set when the task was re-issued as a one-shot send.
	Reissued bool
	// Canceled lists the task ids the driver canceled.
	Canceled []string
	Ledger   *Ledger
}

type item struct {
	ev  wire.Event
	err error
}

type run struct {
	d        *Driver
	clock    timeline.Clock
	ledger   *Ledger
	exp      Expectation
	followUp func(*wire.Message) *wire.Message
	inputs   []*wire.Message
	res      Result

	key, id, ctxID string
	prompt         *wire.Message

	events      <-chan item
	stopStream  context.CancelFunc
	streamEnded chan struct{}
}

// Run sends input to skillID and drives the task to an end: it follows the
// stream or polls, answers input-required with followUp (a continuation
// with the same task and context ids), probes with GetTask when a state is
// held past its deadline, cancels the task on divergence and re-issues once
// as a one-shot send (all inputs up front) when the expectation was
// downgraded to it. followUp receives the agent's input-required status
// message, or nil when the driver gathers inputs for a one-shot re-issue; it
// may be nil. The error is a *DivergenceError when the agent broke its
// contract.
func (d *Driver) Run(ctx context.Context, skillID string, input *wire.Message, followUp func(prompt *wire.Message) *wire.Message) (*Result, error) {
	if d.Agent == nil || input == nil {
		return nil, errors.New("reconcile: Run needs an Agent and an input message")
	}
	r := &run{d: d, clock: d.Clock, ledger: d.Ledger, followUp: followUp}
	if r.clock == nil {
		r.clock = timeline.RealClock{}
	}
	if r.ledger == nil {
		r.ledger = NewLedger(LedgerConfig{Clock: r.clock, Declared: d.Card})
	}
	r.res.Ledger = r.ledger
	r.exp = Expect(d.Card, skillID)
	if d.WorkingDeadline > 0 {
		r.exp.WorkingDeadline = d.WorkingDeadline
	}
	if skillID != "" && !r.exp.SkillDeclared {
		return &r.res, fmt.Errorf("%w: %q", ErrUnknownSkill, skillID)
	}
	for _, p := range input.Parts {
		if mt := mediaType(p); !r.exp.Skill.Accepts(mt) {
			return &r.res, fmt.Errorf("%w: %s for skill %q (declares %v)", ErrInputModeNotDeclared, mt, skillID, r.exp.Skill.InputModes)
		}
	}
	defer r.closeStream()
	r.inputs = []*wire.Message{input}
	err := r.attempt(ctx, r.fresh(input))
	if errors.Is(err, errReissue) {
		r.res.Reissued = true
		err = r.attempt(ctx, r.oneShot())
		if errors.Is(err, errReissue) {
			err = ErrUnresolved
		}
	}
	r.fill()
	return &r.res, err
}

func (r *run) fill() {
	r.res.Downgrades = append([]Verdict(nil), r.exp.Downgrades...)
	if t, ok := r.ledger.Task(r.key); ok {
		r.res.Key = t.Key
		r.res.TaskID = t.TaskID()
		r.res.ContextID = t.ContextID
		r.res.State = t.Last()
		r.res.Outcome = t.Outcome
	}
}

func mediaType(p wire.Part) string {
	switch {
	case p.MediaType != "":
		return p.MediaType
	case p.Kind == wire.PartData:
		return "application/json"
	case p.Kind == wire.PartFile:
		return "application/octet-stream"
	}
	return "text/plain"
}

func newMessageID() string { return "reconcile-" + rand.Text() }

// fresh copies m as a new user message.
func (r *run) fresh(m *wire.Message) *wire.Message {
	c := *m
	c.MessageID = newMessageID()
	if c.Role == "" {
		c.Role = wire.RoleUser
	}
	return &c
}

// oneShot merges every input into one message without task or context, so
// the agent can finish without asking.
func (r *run) oneShot() *wire.Message {
	if len(r.inputs) == 1 && r.followUp != nil {
		if extra := r.followUp(nil); extra != nil {
			r.inputs = append(r.inputs, extra)
		}
	}
	m := &wire.Message{MessageID: newMessageID(), Role: wire.RoleUser}
	for _, in := range r.inputs {
		m.Parts = append(m.Parts, in.Parts...)
	}
	return m
}

// attempt drives one task, continuations included.
func (r *run) attempt(ctx context.Context, msg *wire.Message) error {
	first, err := r.send(ctx, msg)
	if err != nil {
		return err
	}
	r.key = r.ledger.KeyOf(first)
	r.id = first.TaskID
	if err := r.observe(first); err != nil {
		return r.abort(ctx, err)
	}
	for turns := 0; ; turns++ {
		if err := r.follow(ctx); err != nil {
			return r.abort(ctx, err)
		}
		task, _ := r.ledger.Task(r.key)
		v, err := r.exp.Check(task)
		if err != nil {
			return r.abort(ctx, err)
		}
		last := task.Last()
		if last.Terminal() {
			if v == VerdictOneShotSend && !r.res.Reissued {
				return errReissue
			}
			return nil
		}
		if last == wire.StateAuthRequired {
			return r.abort(ctx, ErrAuthRequired)
		}
		if turns >= r.maxTurns() {
			return r.abort(ctx, ErrTooManyTurns)
		}
		var reply *wire.Message
		if r.followUp != nil {
			reply = r.followUp(r.prompt)
		}
		if reply == nil {
			return r.abort(ctx, ErrNoInput)
		}
		r.inputs = append(r.inputs, reply)
		cont := r.fresh(reply)
		cont.TaskID, cont.ContextID = r.id, r.ctxID
		r.closeStream()
		next, err := r.send(ctx, cont)
		if err != nil {
			return r.abort(ctx, err)
		}
		if r.ledger.KeyOf(next) == r.key {
			// Same task, or the same correlation behind a gateway.
			r.id = next.TaskID
			if err := r.observe(next); err != nil {
				return r.abort(ctx, err)
			}
			continue
		}
		v, divErr := r.exp.ContinuationCheck(task, next.TaskID)
		// The spawned task is real whatever the verdict: record it and
		// cancel it, so it is not orphaned.
		r.closeStream()
		_ = r.ledger.Observe(next)
		r.cancel(ctx, next.TaskID)
		if divErr != nil {
			return r.abort(ctx, divErr)
		}
		if v == VerdictOneShotSend && !r.res.Reissued {
			r.cancel(ctx, r.id)
			return errReissue
		}
		return r.abort(ctx, ErrUnresolved)
	}
}

func (r *run) maxTurns() int {
	if r.d.MaxTurns > 0 {
		return r.d.MaxTurns
	}
	return 8
}

func (r *run) cancelTimeout() time.Duration {
	if r.d.CancelTimeout > 0 {
		return r.d.CancelTimeout
	}
	return 5 * time.Second
}

func (r *run) pollInterval() time.Duration {
	if r.d.PollInterval > 0 {
		return r.d.PollInterval
	}
	return time.Second
}

// send sends msg by stream or unary send and returns the first observation.
func (r *run) send(ctx context.Context, msg *wire.Message) (Observation, error) {
	if r.d.Card.Streaming && !r.d.Poll && !r.d.Card.PushOnly {
		return r.openStream(ctx, msg)
	}
	t, err := r.d.Agent.Send(ctx, msg, SendOptions{ReturnImmediately: true})
	if err != nil {
		return Observation{}, err
	}
	if t == nil {
		return Observation{}, ErrNoTask
	}
	r.note(t)
	o := ObservationFromTask(SourceSendResponse, t)
	o.At = r.clock.Now()
	return o, nil
}

// note keeps what a snapshot says about the conversation.
func (r *run) note(t *wire.Task) {
	if t.ContextID != "" {
		r.ctxID = t.ContextID
	}
	if t.Status.Message != nil {
		r.prompt = t.Status.Message
	}
}

func (r *run) openStream(ctx context.Context, msg *wire.Message) (Observation, error) {
	sctx, cancel := context.WithCancel(ctx)
	seq, err := r.d.Agent.Stream(sctx, msg)
	if err != nil {
		cancel()
		if errors.Is(err, ErrNotSupported) {
			return Observation{}, CapabilityNotHonoured(msg.TaskID, "streaming", "stream refused: "+err.Error())
		}
		return Observation{}, err
	}
	ch := make(chan item)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(ch)
		for ev, err := range seq {
			select {
			case ch <- item{ev, err}:
			case <-sctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	r.events, r.stopStream, r.streamEnded = ch, cancel, done
	stop := func() bool { return false }
	defer func() { stop() }()
	var timer <-chan time.Time
	timer, stop = r.after(r.exp.submittedDeadline())
	for {
		select {
		case it, ok := <-ch:
			if !ok {
				return Observation{}, ErrNoTask
			}
			if it.err != nil {
				return Observation{}, it.err
			}
			if o, ok := ObservationFromEvent(SourceStream, it.ev); ok && o.TaskID != "" {
				if it.ev.Task != nil {
					r.note(it.ev.Task)
				}
				if o.ContextID != "" {
					r.ctxID = o.ContextID
				}
				o.At = r.clock.Now()
				return o, nil
			}
		case <-timer:
			return Observation{}, ErrNoAck
		case <-ctx.Done():
			return Observation{}, ctx.Err()
		}
	}
}

// closeStream stops the current stream and waits for its reader to end.
func (r *run) closeStream() {
	if r.stopStream == nil {
		return
	}
	r.stopStream()
	<-r.streamEnded
	r.events, r.stopStream, r.streamEnded = nil, nil, nil
}

// after returns a timer on the run's clock and a function releasing it.
func (r *run) after(d time.Duration) (<-chan time.Time, func() bool) {
	return r.clock.NewTimer(d)
}

func (r *run) observe(o Observation) error {
	if o.At.IsZero() {
		o.At = r.clock.Now()
	}
	return r.ledger.Observe(o)
}

// probe asks for the task's current state.
func (r *run) probe(ctx context.Context) error {
	t, err := r.d.Agent.GetTask(ctx, r.id)
	if err != nil {
		return err
	}
	if t == nil {
		return ErrNoTask
	}
	r.note(t)
	return r.observe(ObservationFromTask(SourcePoll, t))
}

// follow waits, on the stream or by polling, until the task is terminal or
// interrupted, or a deadline confirmed by a probe is passed.
func (r *run) follow(ctx context.Context) error {
	for {
		task, _ := r.ledger.Task(r.key)
		last := task.Last()
		if last.Terminal() || last.Interrupted() || task.Outcome.Terminal() {
			// The caller checks ended tasks once, as that may downgrade.
			return nil
		}
		if _, err := r.exp.Check(task); err != nil {
			return err
		}
		deadline, _ := r.exp.Deadline(task)
		wait := deadline.Sub(r.clock.Now())
		if r.events == nil {
			wait = min(wait, r.pollInterval())
		}
		timer, stop := r.after(max(wait, 0))
		var err error
		select {
		case it, ok := <-r.events: // never ready when polling (nil channel)
			stop()
			err = r.streamItem(ctx, it, ok)
		case <-timer:
			err = r.probe(ctx)
		case <-ctx.Done():
			stop()
			return ctx.Err()
		}
		if err != nil {
			return err
		}
	}
}

func (r *run) streamItem(ctx context.Context, it item, ok bool) error {
	if ok && it.err == nil {
		if it.ev.Task != nil {
			r.note(it.ev.Task)
		}
		if it.ev.Status != nil && it.ev.Status.Status.Message != nil {
			r.prompt = it.ev.Status.Status.Message
		}
		o, has := ObservationFromEvent(SourceStream, it.ev)
		if !has {
			return nil
		}
		return r.observe(o)
	}
	// The stream ended (or broke): probe once, then either the task is
	// done or the stream left it without updates.
	r.closeStream()
	if err := r.probe(ctx); err != nil {
		return err
	}
	task, _ := r.ledger.Task(r.key)
	if it.err != nil {
		// A broken connection is not the agent's contract: poll on.
		return nil
	}
	return r.exp.CheckStreamEnd(task)
}

// abort ends the task on err: a divergence marks the ledger, and the task is
// canceled unless it already ended, so the agent is left with no orphan.
func (r *run) abort(ctx context.Context, err error) error {
	r.closeStream()
	var d *DivergenceError
	if ctx.Err() != nil {
		// The caller's deadline or cancelation ended the run, not the agent:
		// the task is canceled on a context of its own, or it is orphaned.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.cancelTimeout())
		defer cancel()
		ctx = cctx
	} else if errors.As(err, &d) && r.key != "" {
		r.ledger.MarkDiverged(r.key, d)
	}
	if r.id != "" {
		if t, ok := r.ledger.Task(r.key); ok && !t.Last().Terminal() {
			r.cancel(ctx, r.id)
		}
	}
	return err
}

// cancel cancels id and records the answer; a refusal is not an error of
// the run, since the task may have ended meanwhile.
func (r *run) cancel(ctx context.Context, id string) {
	t, err := r.d.Agent.CancelTask(ctx, id)
	r.res.Canceled = append(r.res.Canceled, id)
	if err == nil && t != nil {
		_ = r.observe(ObservationFromTask(SourceCancel, t))
	}
}
