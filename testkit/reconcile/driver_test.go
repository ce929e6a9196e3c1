package reconcile

import (
	"context"
	"fmt"
	"iter"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// ftask is a scripted task of the fake agent.
type ftask struct {
	id, ctx string
	state   wire.TaskState
	// polls are the states successive GetTask calls move the task to; the
	// last one holds.
	polls []wire.TaskState
	// events are the states a stream moves the task through after its
	// first snapshot; hang keeps the stream open afterwards.
	events []wire.TaskState
	hang   bool
	prompt string
}

// fakeAgent is a scripted Agent. create answers new messages, cont answers
// continuations (a message with a task id); both return the task to serve.
type fakeAgent struct {
	mu        sync.Mutex
	n         int
	tasks     map[string]*ftask
	sends     []*wire.Message
	gets      []string
	cancels   []string
	streaming bool
	busy      atomic.Int32
	create    func(f *fakeAgent, msg *wire.Message) *ftask
	cont      func(f *fakeAgent, msg *wire.Message, t *ftask) *ftask
}

func newFake(streaming bool, create func(*fakeAgent, *wire.Message) *ftask, cont func(*fakeAgent, *wire.Message, *ftask) *ftask) *fakeAgent {
	return &fakeAgent{tasks: map[string]*ftask{}, streaming: streaming, create: create, cont: cont}
}

// newTask registers a task with a fresh id; callers hold f.mu.
func (f *fakeAgent) newTask(state wire.TaskState) *ftask {
	f.n++
	t := &ftask{id: fmt.Sprintf("t%d", f.n), ctx: fmt.Sprintf("c%d", f.n), state: state}
	f.tasks[t.id] = t
	return t
}

func (f *fakeAgent) snapshot(t *ftask) *wire.Task {
	s := wire.TaskStatus{State: t.state}
	if t.state == wire.StateInputRequired && t.prompt != "" {
		s.Message = &wire.Message{Role: wire.RoleAgent, Parts: []wire.Part{wire.TextPart(t.prompt)}}
	}
	return &wire.Task{ID: t.id, ContextID: t.ctx, Status: s}
}

func (f *fakeAgent) dispatch(msg *wire.Message) (*ftask, error) {
	f.sends = append(f.sends, msg)
	if msg.TaskID == "" {
		return f.create(f, msg), nil
	}
	t, ok := f.tasks[msg.TaskID]
	if !ok {
		return nil, wire.ErrTaskNotFound(msg.TaskID)
	}
	return f.cont(f, msg, t), nil
}

func (f *fakeAgent) Send(_ context.Context, msg *wire.Message, _ SendOptions) (*wire.Task, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, err := f.dispatch(msg)
	if err != nil {
		return nil, err
	}
	return f.snapshot(t), nil
}

func (f *fakeAgent) Stream(ctx context.Context, msg *wire.Message) (iter.Seq2[wire.Event, error], error) {
	if !f.streaming {
		return nil, ErrNotSupported
	}
	f.mu.Lock()
	t, err := f.dispatch(msg)
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	// The stream counts as busy until the driver lets go of it (cancels its
	// context), not merely until its last event was handed over: between
	// the two the driver is still acting on that event, and a clock moved
	// then could fire the deadline of the next call it is about to make.
	f.busy.Add(1)
	idle := sync.OnceFunc(func() { f.busy.Add(-1) })
	context.AfterFunc(ctx, idle)
	return func(yield func(wire.Event, error) bool) {
		f.mu.Lock()
		first := f.snapshot(t)
		events := append([]wire.TaskState(nil), t.events...)
		t.events = nil
		f.mu.Unlock()
		if !yield(wire.Event{Task: first}, nil) {
			return
		}
		for _, s := range events {
			f.mu.Lock()
			t.state = s
			snap := f.snapshot(t)
			f.mu.Unlock()
			if !yield(wire.Event{Status: &wire.StatusUpdate{TaskID: t.id, ContextID: t.ctx, Status: snap.Status}}, nil) {
				return
			}
		}
		if t.hang {
			idle()
			<-ctx.Done()
		}
	}, nil
}

func (f *fakeAgent) GetTask(_ context.Context, id string) (*wire.Task, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gets = append(f.gets, id)
	t, ok := f.tasks[id]
	if !ok {
		return nil, wire.ErrTaskNotFound(id)
	}
	if len(t.polls) > 0 {
		t.state = t.polls[0]
		if len(t.polls) > 1 {
			t.polls = t.polls[1:]
		}
	}
	return f.snapshot(t), nil
}

func (f *fakeAgent) CancelTask(_ context.Context, id string) (*wire.Task, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancels = append(f.cancels, id)
	t, ok := f.tasks[id]
	if !ok {
		return nil, wire.ErrTaskNotFound(id)
	}
	if t.state.Terminal() {
		return nil, wire.Errorf(wire.CodeTaskNotCancelable, "task %s is %s", id, t.state)
	}
	t.state, t.polls, t.events = wire.StateCanceled, nil, nil
	return f.snapshot(t), nil
}

func (f *fakeAgent) counts() (sends, gets int, cancels []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.sends), len(f.gets), append([]string(nil), f.cancels...)
}

// drive runs the driver and moves the fake clock to the next deadline
// whenever the driver is waiting on it and no scripted stream is still
// delivering, so bounded waits pass without real sleeping.
func drive(t *testing.T, d *Driver, f *fakeAgent, skill string, input *wire.Message, followUp func(*wire.Message) *wire.Message) (*Result, error) {
	t.Helper()
	clock := d.Clock.(*timeline.FakeClock)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	type out struct {
		res *Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := d.Run(ctx, skill, input, followUp)
		done <- out{res, err}
	}()
	for {
		select {
		case o := <-done:
			return o.res, o.err
		case <-ctx.Done():
			t.Fatal("driver did not finish")
		default:
		}
		if clock.Waiters() > 0 && f.busy.Load() == 0 {
			clock.AdvanceToNext()
		}
		runtime.Gosched()
	}
}

func newDriver(f *fakeAgent, d Declared) *Driver {
	clock := timeline.NewFakeClock(t0)
	return &Driver{Agent: f, Card: d, Clock: clock, PollInterval: time.Second, WorkingDeadline: 10 * time.Second,
		Ledger: NewLedger(LedgerConfig{Clock: clock, Declared: d}), Poll: !f.streaming}
}

func userText(s string) *wire.Message {
	return &wire.Message{Role: wire.RoleUser, Parts: []wire.Part{wire.TextPart(s)}}
}

func answer(s string) func(*wire.Message) *wire.Message {
	return func(*wire.Message) *wire.Message { return userText(s) }
}

// honest parks a task of a needs-input skill in input-required and
// finishes it when continued.
func honest(polling bool) *fakeAgent {
	return newFake(!polling, func(f *fakeAgent, _ *wire.Message) *ftask {
		t := f.newTask(wire.StateSubmitted)
		t.prompt = "Which dates?"
		t.polls = []wire.TaskState{wire.StateWorking, wire.StateInputRequired}
		t.events = t.polls
		return t
	}, func(_ *fakeAgent, _ *wire.Message, t *ftask) *ftask {
		t.state = wire.StateWorking
		t.polls = []wire.TaskState{wire.StateCompleted}
		t.events = t.polls
		return t
	})
}

func TestDriverHonestInputRequired(t *testing.T) {
	t.Parallel()
	for _, polling := range []bool{true, false} {
		t.Run(fmt.Sprintf("polling=%v", polling), func(t *testing.T) {
			t.Parallel()
			f := honest(polling)
			d := newDriver(f, historyDeclared())
			d.Poll = polling
			var prompt string
			res, err := drive(t, d, f, "ask", userText("plan a trip"), func(p *wire.Message) *wire.Message {
				prompt = p.Text()
				return userText("next week")
			})
			require.NoError(t, err)
			assert.Equal(t, OutcomeCompleted, res.Outcome)
			assert.Equal(t, "t1", res.TaskID)
			assert.Empty(t, res.Downgrades)
			assert.Equal(t, "Which dates?", prompt)
			task, _ := res.Ledger.Task("t1")
			assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateWorking, wire.StateInputRequired, wire.StateWorking, wire.StateCompleted}, task.States)
			f.mu.Lock()
			require.Len(t, f.sends, 2)
			assert.Equal(t, "t1", f.sends[1].TaskID, "continuation keeps the task id")
			assert.Equal(t, "c1", f.sends[1].ContextID, "and the context id")
			assert.NotEqual(t, f.sends[0].MessageID, f.sends[1].MessageID)
			f.mu.Unlock()
			_, _, cancels := f.counts()
			assert.Empty(t, cancels)
			assert.Empty(t, res.Ledger.Unreconciled())
		})
	}
}

// TestDriverNewTaskIDOnContinuation reproduces the field note: the agent
// answers the continuation with a fresh task and leaves the first working.
func TestDriverNewTaskIDOnContinuation(t *testing.T) {
	t.Parallel()
	f := newFake(false, func(f *fakeAgent, _ *wire.Message) *ftask {
		t := f.newTask(wire.StateSubmitted)
		t.polls = []wire.TaskState{wire.StateWorking, wire.StateInputRequired}
		return t
	}, func(f *fakeAgent, _ *wire.Message, orig *ftask) *ftask {
		orig.state, orig.polls = wire.StateWorking, nil // abandoned, never collected
		n := f.newTask(wire.StateSubmitted)
		n.polls = []wire.TaskState{wire.StateWorking}
		return n
	})
	d := newDriver(f, historyDeclared())
	res, err := drive(t, d, f, "ask", userText("plan"), answer("dates"))
	var div *DivergenceError
	require.ErrorAs(t, err, &div)
	assert.Equal(t, KindNewTaskIDOnContinuation, div.Kind)
	assert.Equal(t, "t1", div.TaskID)
	assert.Contains(t, div.Observed, `"t2"`)

	_, _, cancels := f.counts()
	assert.ElementsMatch(t, []string{"t1", "t2"}, cancels, "the orphan and the spawned task are canceled")
	assert.Equal(t, OutcomeDiverged, res.Outcome)
	orig, _ := res.Ledger.Task("t1")
	assert.Equal(t, OutcomeDiverged, orig.Outcome)
	assert.Equal(t, wire.StateCanceled, orig.Last())
	assert.Empty(t, res.Ledger.Unreconciled(), "no task left pending")
}

func TestDriverGatewayCorrelationIsNoDivergence(t *testing.T) {
	t.Parallel()
	// Behind an id-rewriting gateway every answer has a new id but the same
	// correlation id: task ids are no key, the correlation is.
	f := newFake(false, func(f *fakeAgent, _ *wire.Message) *ftask {
		t := f.newTask(wire.StateWorking)
		t.polls = []wire.TaskState{wire.StateInputRequired}
		return t
	}, func(f *fakeAgent, _ *wire.Message, orig *ftask) *ftask {
		n := f.newTask(wire.StateWorking)
		n.ctx = orig.ctx
		n.polls = []wire.TaskState{wire.StateCompleted}
		orig.state = wire.StateCompleted
		return n
	})
	d := newDriver(f, historyDeclared())
	d.Ledger = NewLedger(LedgerConfig{Clock: d.Clock, Declared: d.Card, Key: func(o Observation) string {
		return "corr-" + o.ContextID // the gateway's correlation, as the caller extracts it
	}})
	res, err := drive(t, d, f, "ask", userText("plan"), answer("dates"))
	require.NoError(t, err)
	assert.Equal(t, OutcomeCompleted, res.Outcome)
	assert.Equal(t, "corr-c1", res.Key)
	task, _ := res.Ledger.Task("corr-c1")
	assert.Equal(t, []string{"t1", "t2"}, task.TaskIDs)
}

func TestDriverNeverTerminalIsStuckWorking(t *testing.T) {
	t.Parallel()
	f := newFake(false, func(f *fakeAgent, _ *wire.Message) *ftask {
		t := f.newTask(wire.StateSubmitted)
		t.polls = []wire.TaskState{wire.StateWorking}
		return t
	}, nil)
	d := newDriver(f, historyDeclared())
	res, err := drive(t, d, f, "plain", userText("go"), nil)
	var div *DivergenceError
	require.ErrorAs(t, err, &div)
	assert.Equal(t, KindStuckWorking, div.Kind)
	_, gets, cancels := f.counts()
	assert.LessOrEqual(t, gets, 11, "polling is bounded by deadline/interval")
	assert.GreaterOrEqual(t, gets, 2)
	assert.Equal(t, []string{"t1"}, cancels)
	assert.Equal(t, OutcomeDiverged, res.Outcome)
	assert.Equal(t, t0.Add(10*time.Second), d.Clock.Now(), "gave up exactly at the deadline")
}

func TestDriverSkipWorkingDowngrades(t *testing.T) {
	t.Parallel()
	f := newFake(false, func(f *fakeAgent, _ *wire.Message) *ftask {
		t := f.newTask(wire.StateSubmitted)
		t.polls = []wire.TaskState{wire.StateCompleted}
		return t
	}, nil)
	d := newDriver(f, historyDeclared())
	res, err := drive(t, d, f, "ask", userText("plan"), answer("unused"))
	require.NoError(t, err)
	assert.Equal(t, OutcomeCompleted, res.Outcome)
	assert.Equal(t, []Verdict{VerdictDropHistory, VerdictStopWaitingForInput}, res.Downgrades)
	sends, _, cancels := f.counts()
	assert.Equal(t, 1, sends)
	assert.Empty(t, cancels)
}

func TestDriverFailedInsteadOfParkingReissuesOneShot(t *testing.T) {
	t.Parallel()
	f := newFake(false, func(f *fakeAgent, msg *wire.Message) *ftask {
		t := f.newTask(wire.StateWorking)
		if len(msg.Parts) < 2 {
			t.polls = []wire.TaskState{wire.StateFailed}
		} else {
			t.polls = []wire.TaskState{wire.StateCompleted}
		}
		return t
	}, nil)
	d := newDriver(f, historyDeclared())
	var asked []*wire.Message
	res, err := drive(t, d, f, "ask", userText("plan"), func(p *wire.Message) *wire.Message {
		asked = append(asked, p)
		return userText("dates")
	})
	require.NoError(t, err)
	assert.True(t, res.Reissued)
	assert.Equal(t, []Verdict{VerdictOneShotSend}, res.Downgrades)
	assert.Equal(t, "t2", res.TaskID)
	assert.Equal(t, OutcomeCompleted, res.Outcome)
	require.Len(t, asked, 1)
	assert.Nil(t, asked[0], "followUp is asked up front, without a prompt")
	f.mu.Lock()
	defer f.mu.Unlock()
	require.Len(t, f.sends, 2)
	assert.Equal(t, "plan\ndates", f.sends[1].Text())
	assert.Empty(t, f.sends[1].TaskID)
}

func TestDriverStuckSubmittedAfterOneProbe(t *testing.T) {
	t.Parallel()
	f := newFake(true, func(f *fakeAgent, _ *wire.Message) *ftask {
		t := f.newTask(wire.StateSubmitted)
		t.hang = true
		return t
	}, nil)
	d := newDriver(f, historyDeclared()) // skill "ask" declares 5s
	res, err := drive(t, d, f, "ask", userText("plan"), answer("x"))
	var div *DivergenceError
	require.ErrorAs(t, err, &div)
	assert.Equal(t, KindStuckSubmitted, div.Kind)
	_, gets, cancels := f.counts()
	assert.Equal(t, 1, gets, "exactly one GetTask probe")
	assert.Equal(t, []string{"t1"}, cancels)
	// The declared 5s is when the probe is due; the helper may jump a
	// stream's stale timer first, never past the working deadline.
	assert.False(t, d.Clock.Now().Before(t0.Add(5*time.Second)))
	assert.False(t, d.Clock.Now().After(t0.Add(10*time.Second)))
	assert.Equal(t, OutcomeDiverged, res.Outcome)
}

func TestDriverStreamEndedWithoutTerminal(t *testing.T) {
	t.Parallel()
	f := newFake(true, func(f *fakeAgent, _ *wire.Message) *ftask {
		t := f.newTask(wire.StateSubmitted)
		t.events = []wire.TaskState{wire.StateWorking}
		return t
	}, nil)
	d := newDriver(f, historyDeclared())
	_, err := drive(t, d, f, "plain", userText("go"), nil)
	require.True(t, IsKind(err, KindStreamEndedWithoutTerminal), "got %v", err)
	_, gets, cancels := f.counts()
	assert.Equal(t, 1, gets, "one probe before concluding")
	assert.Equal(t, []string{"t1"}, cancels)
}

func TestDriverStreamRefused(t *testing.T) {
	t.Parallel()
	f := newFake(false, nil, nil)
	d := newDriver(f, historyDeclared())
	d.Poll = false // the card declares streaming; the agent refuses it
	_, err := drive(t, d, f, "plain", userText("go"), nil)
	require.True(t, IsKind(err, KindCapabilityNotHonoured), "got %v", err)
}

func TestDriverRouting(t *testing.T) {
	t.Parallel()
	f := newFake(false, nil, nil)
	d := newDriver(f, historyDeclared())
	_, err := d.Run(context.Background(), "nope", userText("x"), nil)
	assert.ErrorIs(t, err, ErrUnknownSkill)
	img := &wire.Message{Parts: []wire.Part{{Kind: wire.PartFile, MediaType: "image/png"}}}
	_, err = d.Run(context.Background(), "ask", img, nil)
	assert.ErrorIs(t, err, ErrInputModeNotDeclared)
	_, err = d.Run(context.Background(), "ask", nil, nil)
	assert.Error(t, err)
	sends, _, _ := f.counts()
	assert.Zero(t, sends)
}

func TestDriverNoInputCancels(t *testing.T) {
	t.Parallel()
	f := honest(true)
	d := newDriver(f, historyDeclared())
	d.Poll = true
	res, err := drive(t, d, f, "ask", userText("plan"), nil)
	assert.ErrorIs(t, err, ErrNoInput)
	_, _, cancels := f.counts()
	assert.Equal(t, []string{"t1"}, cancels)
	assert.Equal(t, OutcomeCanceled, res.Outcome)
	assert.Empty(t, res.Ledger.Unreconciled())
}

// workingDriver is a polling driver of an agent whose task stays working.
func workingDriver() (*Driver, *fakeAgent) {
	f := newFake(false, func(f *fakeAgent, _ *wire.Message) *ftask { return f.newTask(wire.StateWorking) }, nil)
	d := newDriver(f, historyDeclared())
	d.Poll = true
	return d, f
}

// endRunWhilePolling runs d and cancels the run's context once the driver
// waits between polls; it returns Run's error.
func endRunWhilePolling(d *Driver) error {
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := d.Run(ctx, "plain", userText("go"), nil)
		errc <- err
	}()
	d.Clock.(*timeline.FakeClock).BlockUntil(1)
	cancel()
	return <-errc
}

func TestDriverContextCanceled(t *testing.T) {
	t.Parallel()
	d, f := workingDriver()
	assert.ErrorIs(t, endRunWhilePolling(d), context.Canceled)
	// The run ended, the task did not: the driver cancels it on the way
	// out, on a context of its own, rather than leave it orphaned.
	_, _, cancels := f.counts()
	assert.Equal(t, []string{"t1"}, cancels)
}

// deadlineCancel is an agent whose CancelTask reports how long its context
// had left.
type deadlineCancel struct {
	*fakeAgent
	deadline chan time.Duration
}

func (h deadlineCancel) CancelTask(ctx context.Context, id string) (*wire.Task, error) {
	left := time.Duration(-1)
	if dl, ok := ctx.Deadline(); ok && ctx.Err() == nil {
		left = time.Until(dl)
	}
	h.deadline <- left
	return h.fakeAgent.CancelTask(ctx, id)
}

// The cancel sent after the caller ended the run is bounded by
// CancelTimeout (5s by default), not by the caller's context, which is over.
func TestDriverCancelTimeout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		set, want time.Duration
	}{{0, 5 * time.Second}, {20 * time.Millisecond, 20 * time.Millisecond}} {
		d, f := workingDriver()
		h := deadlineCancel{fakeAgent: f, deadline: make(chan time.Duration, 1)}
		d.Agent, d.CancelTimeout = h, tc.set
		assert.ErrorIs(t, endRunWhilePolling(d), context.Canceled)
		left := <-h.deadline
		assert.True(t, left > 0 && left <= tc.want, "CancelTimeout %s: the cancel's context had %s left, want at most %s", tc.set, left, tc.want)
	}
}
