package reconcile

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

var t0 = time.Date(2026, 11, 12, 9, 0, 0, 0, time.UTC)

func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

func historyDeclared() Declared {
	return Declared{Name: "worker", Dialect: wire.V03, Streaming: true, StateTransitionHistory: true,
		Skills: []DeclaredSkill{
			{ID: "ask", NeedsInput: true, InputModes: []string{"text/plain"}, EstimatedDuration: 5 * time.Second},
			{ID: "plain", InputModes: []string{"text/plain"}},
		}}
}

func obs(id string, s wire.TaskState, src Source, sec int) Observation {
	return Observation{TaskID: id, ContextID: "c1", State: s, Source: src, At: at(sec)}
}

func TestLedgerRecordsChangesAndRaw(t *testing.T) {
	t.Parallel()
	l := NewLedger(LedgerConfig{})
	for _, o := range []Observation{
		obs("t1", wire.StateSubmitted, SourceSendResponse, 0),
		obs("t1", wire.StateWorking, SourceStream, 1),
		obs("t1", wire.StateWorking, SourcePoll, 2),
		obs("t1", wire.StateCompleted, SourcePush, 3),
		obs("t1", wire.StateCompleted, SourcePoll, 4),
	} {
		require.NoError(t, l.Observe(o))
	}
	task, ok := l.Task("t1")
	require.True(t, ok)
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateWorking, wire.StateCompleted}, task.States)
	assert.Len(t, task.Raw, 5)
	assert.Equal(t, []Transition{
		{wire.StateSubmitted, SourceSendResponse, at(0)},
		{wire.StateWorking, SourceStream, at(1)},
		{wire.StateCompleted, SourcePush, at(3)},
	}, task.Transitions)
	assert.Equal(t, at(0), task.FirstSeen)
	assert.Equal(t, at(4), task.LastSeen)
	assert.Equal(t, OutcomeCompleted, task.Outcome)
	assert.Empty(t, l.Unreconciled())

	task.States[0] = wire.StateFailed
	again, _ := l.Task("t1")
	assert.Equal(t, wire.StateSubmitted, again.States[0], "snapshots are copies")
}

func TestLedgerStampsWithClock(t *testing.T) {
	t.Parallel()
	clock := timeline.NewFakeClock(t0)
	l := NewLedger(LedgerConfig{Clock: clock})
	clock.Advance(7 * time.Second)
	require.NoError(t, l.Observe(Observation{TaskID: "t1", State: wire.StateSubmitted, Source: SourcePoll}))
	task, _ := l.Task("t1")
	assert.Equal(t, at(7), task.FirstSeen)
}

func TestLedgerTransitionAfterTerminal(t *testing.T) {
	t.Parallel()
	l := NewLedger(LedgerConfig{})
	require.NoError(t, l.Observe(obs("t1", wire.StateCompleted, SourceSendResponse, 0)))
	err := l.Observe(obs("t1", wire.StateWorking, SourcePoll, 1))
	var d *DivergenceError
	require.ErrorAs(t, err, &d)
	assert.Equal(t, KindTransitionAfterTerminal, d.Kind)
	assert.Equal(t, "t1", d.TaskID)
	task, _ := l.Task("t1")
	assert.Equal(t, OutcomeDiverged, task.Outcome)
	require.NotNil(t, task.Divergence)
	assert.Equal(t, KindTransitionAfterTerminal, task.Divergence.Kind)
}

func TestLedgerInputRequiredWithoutWorking(t *testing.T) {
	t.Parallel()
	hist := historyDeclared()
	cases := []struct {
		name     string
		declared Declared
		src      Source
		diverges bool
	}{
		{"history declared", hist, SourcePoll, true},
		{"no history", Declared{}, SourcePoll, false},
		{"push is lossy", hist, SourcePush, false},
		{"push-only mode is lossy", Declared{StateTransitionHistory: true, PushOnly: true}, SourceStream, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			l := NewLedger(LedgerConfig{Declared: c.declared})
			require.NoError(t, l.Observe(obs("t1", wire.StateSubmitted, SourceSendResponse, 0)))
			err := l.Observe(obs("t1", wire.StateInputRequired, c.src, 1))
			if c.diverges {
				assert.True(t, IsKind(err, KindInputRequiredWithoutWorking), "got %v", err)
			} else {
				assert.NoError(t, err)
			}
		})
	}
}

func TestLedgerContextIDChanged(t *testing.T) {
	t.Parallel()
	l := NewLedger(LedgerConfig{})
	require.NoError(t, l.Observe(obs("t1", wire.StateWorking, SourceStream, 0)))
	o := obs("t1", wire.StateWorking, SourcePoll, 1)
	o.ContextID = "c2"
	err := l.Observe(o)
	require.True(t, IsKind(err, KindContextIDChanged), "got %v", err)
	assert.Contains(t, err.Error(), `"c1"`)
	assert.Contains(t, err.Error(), `"c2"`)
}

func TestLedgerCorrelationKey(t *testing.T) {
	t.Parallel()
	l := NewLedger(LedgerConfig{Key: ByCorrelationID})
	a := obs("gw-1", wire.StateWorking, SourceStream, 0)
	a.CorrelationID = "corr"
	b := obs("gw-2", wire.StateInputRequired, SourcePoll, 1)
	b.CorrelationID = "corr"
	require.NoError(t, l.Observe(a))
	require.NoError(t, l.Observe(b))
	// A push without the header still lands on the correlated task.
	require.NoError(t, l.Observe(obs("gw-2", wire.StateCompleted, SourcePush, 2)))

	require.Len(t, l.Tasks(), 1)
	task, ok := l.Task("corr")
	require.True(t, ok)
	assert.Equal(t, []string{"gw-1", "gw-2"}, task.TaskIDs)
	assert.Equal(t, "gw-2", task.TaskID())
	assert.Equal(t, OutcomeCompleted, task.Outcome)
	byID, ok := l.Task("gw-1")
	require.True(t, ok)
	assert.Equal(t, "corr", byID.Key)
}

func TestLedgerUnreconciledAndMarkDiverged(t *testing.T) {
	t.Parallel()
	l := NewLedger(LedgerConfig{})
	require.NoError(t, l.Observe(obs("t1", wire.StateWorking, SourceStream, 0)))
	require.NoError(t, l.Observe(obs("t2", wire.StateFailed, SourcePoll, 0)))
	require.NoError(t, l.Observe(obs("t3", wire.StateInputRequired, SourcePoll, 0)))
	keys := func(ts []*ObservedTask) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Key)
		}
		return out
	}
	assert.Equal(t, []string{"t1", "t3"}, keys(l.Unreconciled()))
	assert.True(t, l.MarkDiverged("t1", &DivergenceError{TaskID: "t1", Kind: KindStuckWorking}))
	assert.False(t, l.MarkDiverged("nope", &DivergenceError{}))
	assert.Equal(t, []string{"t3"}, keys(l.Unreconciled()))
	task, _ := l.Task("t1")
	assert.Equal(t, OutcomeDiverged, task.Outcome)
	assert.NotEqual(t, OutcomeFailed, task.Outcome)

	// A later cancel is recorded but does not hide the divergence.
	require.NoError(t, l.Observe(obs("t1", wire.StateCanceled, SourceCancel, 1)))
	task, _ = l.Task("t1")
	assert.Equal(t, OutcomeDiverged, task.Outcome)
	assert.Equal(t, wire.StateCanceled, task.Last())
}

func TestLedgerRejectsUnusableObservations(t *testing.T) {
	t.Parallel()
	l := NewLedger(LedgerConfig{})
	assert.ErrorIs(t, l.Observe(Observation{State: wire.StateWorking}), ErrNoKey)
	err := l.Observe(Observation{TaskID: "t1", State: "sleeping"})
	require.Error(t, err)
	var d *DivergenceError
	assert.False(t, errors.As(err, &d))
	assert.Empty(t, l.Tasks())
}

func TestObservationFromEvent(t *testing.T) {
	t.Parallel()
	o, ok := ObservationFromEvent(SourceStream, wire.Event{Status: &wire.StatusUpdate{TaskID: "t1", ContextID: "c",
		Status: wire.TaskStatus{State: wire.StateWorking}, Final: true, Metadata: map[string]any{"correlationId": "x"}}})
	require.True(t, ok)
	assert.Equal(t, Observation{TaskID: "t1", ContextID: "c", CorrelationID: "x", State: wire.StateWorking, Source: SourceStream, Final: true}, o)
	_, ok = ObservationFromEvent(SourceStream, wire.Event{Artifact: &wire.ArtifactUpdate{TaskID: "t1"}})
	assert.False(t, ok)
}

func TestDeclare(t *testing.T) {
	t.Parallel()
	card := &cards.Card{
		Name: "w", Dialect: wire.V03, DefaultInputModes: []string{"text/plain"},
		Capabilities: cards.Capabilities{Streaming: true, StateTransitionHistory: true, PushNotifications: true,
			Extensions: []cards.Extension{{URI: cards.DurationExtensionURI, Params: map[string]any{"b": "4s", "c": 12}}}},
		Skills: []cards.Skill{
			{ID: "a", NeedsInput: true, EstimatedDuration: 2 * time.Second, InputModes: []string{"application/json"}},
			{ID: "b", Description: "Plans a trip and will ask for your dates."},
			{ID: "c", Description: "Summarises a document."},
		},
	}
	d := Declare(card, Policy{})
	assert.True(t, d.Streaming)
	assert.True(t, d.PushNotifications)
	assert.True(t, d.StateTransitionHistory)
	assert.False(t, d.HistoryFromPolicy)
	a, _ := d.Skill("a")
	b, _ := d.Skill("b")
	c, ok := d.Skill("c")
	require.True(t, ok)
	assert.True(t, a.NeedsInput)
	assert.Equal(t, 2*time.Second, a.EstimatedDuration)
	assert.True(t, a.Accepts("application/json"))
	assert.False(t, a.Accepts("text/plain"))
	assert.True(t, b.NeedsInput, "derived from the description")
	assert.Equal(t, 4*time.Second, b.EstimatedDuration, "read from the duration extension")
	assert.Equal(t, []string{"text/plain"}, b.InputModes, "card defaults")
	assert.False(t, c.NeedsInput)
	assert.Zero(t, c.EstimatedDuration, "non-string params are ignored")
	_, ok = d.Skill("zz")
	assert.False(t, ok)

	assert.Equal(t, Declared{}, Declare(nil, Policy{}))
}

func TestDeclareV10HistoryPolicy(t *testing.T) {
	t.Parallel()
	card := &cards.Card{Dialect: wire.V10, Capabilities: cards.Capabilities{StateTransitionHistory: true}}
	def := Declare(card, Policy{})
	assert.False(t, def.StateTransitionHistory, "default AssumeNoHistory ignores a stray field")
	assert.True(t, def.HistoryFromPolicy)
	assert.Contains(t, def.HistoryDeclaration(), "policy")
	assumed := Declare(card, Policy{HistoryForV10: AssumeHistory, PushOnly: true})
	assert.True(t, assumed.StateTransitionHistory)
	assert.True(t, assumed.PushOnly)
	old := Declare(&cards.Card{Dialect: wire.V02}, Policy{HistoryForV10: AssumeHistory})
	assert.False(t, old.StateTransitionHistory, "v0.x cards speak for themselves")
}

func TestExpect(t *testing.T) {
	t.Parallel()
	d := historyDeclared()
	e := Expect(d, "ask")
	assert.True(t, e.ExpectInputRequired)
	assert.Equal(t, 5*time.Second, e.SubmittedDeadline)
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateWorking, wire.StateInputRequired, wire.StateWorking, wire.StateCompleted}, e.Expected())
	p := Expect(d, "plain")
	assert.False(t, p.ExpectInputRequired)
	d.StateTransitionHistory = false
	n := Expect(d, "ask")
	assert.False(t, n.ExpectInputRequired, "input-required is expected only with history")
	assert.Zero(t, n.SubmittedDeadline)
	assert.Equal(t, []wire.TaskState{wire.StateSubmitted, wire.StateCompleted}, n.Expected())
	lossy := Expect(Declared{StateTransitionHistory: true, PushOnly: true}, "")
	assert.True(t, lossy.Lossy)
	assert.False(t, lossy.History)
}

func observed(t *testing.T, d Declared, os ...Observation) *ObservedTask {
	t.Helper()
	l := NewLedger(LedgerConfig{Declared: Declared{}}) // ordering is Check's business here
	for _, o := range os {
		require.NoError(t, l.Observe(o))
	}
	task, ok := l.Task(os[0].TaskID)
	require.True(t, ok)
	return task
}

func TestCheckHintOnlyBeforeBeyondSubmitted(t *testing.T) {
	t.Parallel()
	e := Expect(historyDeclared(), "ask")
	task := observed(t, e.Declared, obs("t1", wire.StateSubmitted, SourceSendResponse, 0), obs("t1", wire.StateSubmitted, SourceStream, 1))
	v, err := e.Check(task)
	require.NoError(t, err)
	assert.Equal(t, VerdictHintOnly, v)
	v, err = e.Check(nil)
	require.NoError(t, err)
	assert.Equal(t, VerdictHintOnly, v)
}

func TestCheckConsistentHonestFlow(t *testing.T) {
	t.Parallel()
	e := Expect(historyDeclared(), "ask")
	task := observed(t, e.Declared, obs("t1", wire.StateSubmitted, SourceSendResponse, 0),
		obs("t1", wire.StateWorking, SourceStream, 1), obs("t1", wire.StateInputRequired, SourceStream, 2),
		obs("t1", wire.StateWorking, SourceStream, 3), obs("t1", wire.StateCompleted, SourceStream, 4))
	v, err := e.Check(task)
	require.NoError(t, err)
	assert.Equal(t, VerdictConsistent, v)
	assert.Empty(t, e.Downgrades)
}

func TestCheckStuckWorking(t *testing.T) {
	t.Parallel()
	for _, history := range []bool{true, false} {
		d := historyDeclared()
		d.StateTransitionHistory = history
		e := Expect(d, "plain")
		e.WorkingDeadline = 10 * time.Second
		streamOnly := observed(t, d, obs("t1", wire.StateWorking, SourceSendResponse, 0), obs("t1", wire.StateWorking, SourceStream, 20))
		_, err := e.Check(streamOnly)
		assert.NoError(t, err, "no probe yet: not confirmed")
		early := observed(t, d, obs("t1", wire.StateWorking, SourceSendResponse, 0), obs("t1", wire.StateWorking, SourcePoll, 9))
		_, err = e.Check(early)
		assert.NoError(t, err)
		late := observed(t, d, obs("t1", wire.StateWorking, SourceSendResponse, 0), obs("t1", wire.StateWorking, SourcePoll, 10))
		v, err := e.Check(late)
		assert.Equal(t, VerdictAbort, v)
		var div *DivergenceError
		require.ErrorAs(t, err, &div)
		assert.Equal(t, KindStuckWorking, div.Kind)
		if history {
			assert.Contains(t, div.Declared, "input-required reachable")
		} else {
			assert.Contains(t, div.Declared, "hard deadline")
		}
	}
}

func TestCheckWaitAfterInputIsMeasuredFromResume(t *testing.T) {
	t.Parallel()
	e := Expect(historyDeclared(), "ask")
	e.WorkingDeadline = 10 * time.Second
	task := observed(t, e.Declared, obs("t1", wire.StateWorking, SourceSendResponse, 0),
		obs("t1", wire.StateInputRequired, SourcePoll, 5), obs("t1", wire.StateWorking, SourceSendResponse, 100),
		obs("t1", wire.StateWorking, SourcePoll, 105))
	_, err := e.Check(task)
	assert.NoError(t, err, "time spent waiting for the client does not count")
	assert.Equal(t, at(100), task.ActiveSince())
}

func TestCheckStuckSubmitted(t *testing.T) {
	t.Parallel()
	e := Expect(historyDeclared(), "ask") // declared duration 5s
	task := observed(t, e.Declared, obs("t1", wire.StateSubmitted, SourceSendResponse, 0), obs("t1", wire.StateSubmitted, SourcePoll, 5))
	_, err := e.Check(task)
	var div *DivergenceError
	require.ErrorAs(t, err, &div)
	assert.Equal(t, KindStuckSubmitted, div.Kind)
	assert.Contains(t, div.Declared, "estimatedDuration 5s")

	// Without history the skill's duration is no promise: the hard deadline applies.
	d := historyDeclared()
	d.StateTransitionHistory = false
	n := Expect(d, "ask")
	n.WorkingDeadline = 30 * time.Second
	_, err = n.Check(task)
	assert.NoError(t, err)
	late := observed(t, d, obs("t1", wire.StateSubmitted, SourceSendResponse, 0), obs("t1", wire.StateSubmitted, SourcePoll, 30))
	_, err = n.Check(late)
	assert.True(t, IsKind(err, KindStuckSubmitted))
}

func TestCheckInputRequiredWithoutWorking(t *testing.T) {
	t.Parallel()
	e := Expect(historyDeclared(), "ask")
	task := observed(t, e.Declared, obs("t1", wire.StateSubmitted, SourceSendResponse, 0), obs("t1", wire.StateInputRequired, SourcePoll, 1))
	_, err := e.Check(task)
	assert.True(t, IsKind(err, KindInputRequiredWithoutWorking), "got %v", err)

	lossy := Expect(Declared{StateTransitionHistory: true, PushOnly: true, Skills: historyDeclared().Skills}, "ask")
	v, err := lossy.Check(task)
	require.NoError(t, err)
	assert.Equal(t, VerdictConsistent, v)
}

func TestCheckDowngrades(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		skill  string
		states []wire.TaskState
		want   []Verdict
	}{
		{"completed without asking", "ask", []wire.TaskState{wire.StateSubmitted, wire.StateWorking, wire.StateCompleted}, []Verdict{VerdictStopWaitingForInput}},
		{"failed instead of parking", "ask", []wire.TaskState{wire.StateSubmitted, wire.StateWorking, wire.StateFailed}, []Verdict{VerdictOneShotSend}},
		{"skip working, needs input", "ask", []wire.TaskState{wire.StateSubmitted, wire.StateCompleted}, []Verdict{VerdictDropHistory, VerdictStopWaitingForInput}},
		{"skip working", "plain", []wire.TaskState{wire.StateSubmitted, wire.StateCompleted}, []Verdict{VerdictDropHistory}},
		{"plain failure is no divergence", "plain", []wire.TaskState{wire.StateSubmitted, wire.StateWorking, wire.StateFailed}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := Expect(historyDeclared(), c.skill)
			var os []Observation
			for i, s := range c.states {
				os = append(os, obs("t1", s, SourcePoll, i))
			}
			v, err := e.Check(observed(t, e.Declared, os...))
			require.NoError(t, err)
			assert.Equal(t, c.want, e.Downgrades)
			if len(c.want) == 0 {
				assert.Equal(t, VerdictConsistent, v)
			} else {
				assert.Equal(t, c.want[len(c.want)-1], v)
				assert.True(t, v.Downgrade())
				assert.False(t, e.ExpectInputRequired)
			}
		})
	}
}

func TestCheckLossySkipsOrdering(t *testing.T) {
	t.Parallel()
	d := historyDeclared()
	d.PushOnly = true
	e := Expect(d, "plain")
	v, err := e.Check(observed(t, d, obs("t1", wire.StateSubmitted, SourcePush, 0), obs("t1", wire.StateCompleted, SourcePush, 1)))
	require.NoError(t, err)
	assert.Equal(t, VerdictConsistent, v)
	assert.Empty(t, e.Downgrades)
}

func TestCheckReturnsLedgerDivergence(t *testing.T) {
	t.Parallel()
	l := NewLedger(LedgerConfig{})
	require.NoError(t, l.Observe(obs("t1", wire.StateWorking, SourcePoll, 0)))
	l.MarkDiverged("t1", &DivergenceError{TaskID: "t1", Kind: KindContextIDChanged})
	task, _ := l.Task("t1")
	e := Expect(Declared{}, "")
	v, err := e.Check(task)
	assert.Equal(t, VerdictAbort, v)
	assert.True(t, IsKind(err, KindContextIDChanged))
}

func TestContinuationCheck(t *testing.T) {
	t.Parallel()
	d := historyDeclared()
	working := observed(t, d, obs("t1", wire.StateSubmitted, SourceSendResponse, 0), obs("t1", wire.StateWorking, SourceStream, 1))
	e := Expect(d, "ask")
	v, err := e.ContinuationCheck(working, "t1")
	require.NoError(t, err)
	assert.Equal(t, VerdictConsistent, v)

	v, err = e.ContinuationCheck(working, "t2")
	assert.Equal(t, VerdictAbort, v)
	var div *DivergenceError
	require.ErrorAs(t, err, &div)
	assert.Equal(t, KindNewTaskIDOnContinuation, div.Kind)
	assert.Equal(t, "t1", div.TaskID)
	assert.Contains(t, div.Observed, `"t2"`)

	submittedOnly := observed(t, d, obs("t1", wire.StateSubmitted, SourceSendResponse, 0))
	v, err = e.ContinuationCheck(submittedOnly, "t2")
	require.NoError(t, err, "before working the card is a hint")
	assert.Equal(t, VerdictOneShotSend, v)

	d.StateTransitionHistory = false
	n := Expect(d, "ask")
	v, err = n.ContinuationCheck(working, "t2")
	require.NoError(t, err, "legal without a history promise")
	assert.Equal(t, VerdictOneShotSend, v)
	assert.Equal(t, []Verdict{VerdictOneShotSend}, n.Downgrades)
}

func TestCheckStreamEnd(t *testing.T) {
	t.Parallel()
	e := Expect(historyDeclared(), "")
	assert.True(t, IsKind(e.CheckStreamEnd(observed(t, e.Declared, obs("t1", wire.StateWorking, SourceStream, 0))), KindStreamEndedWithoutTerminal))
	assert.NoError(t, e.CheckStreamEnd(observed(t, e.Declared, obs("t1", wire.StateInputRequired, SourceStream, 0))))
	assert.NoError(t, e.CheckStreamEnd(observed(t, e.Declared, obs("t1", wire.StateCompleted, SourceStream, 0))))
}

func TestDivergenceErrorMessageAndAs(t *testing.T) {
	t.Parallel()
	var err error = &DivergenceError{TaskID: "t9", Kind: KindCapabilityNotHonoured, Declared: "streaming=true", Observed: "refused", Detail: "why"}
	wrapped := errors.Join(errors.New("context"), err)
	var d *DivergenceError
	require.ErrorAs(t, wrapped, &d)
	assert.Equal(t, "t9", d.TaskID)
	msg := d.Error()
	for _, part := range []string{"t9", "streaming=true", "refused", "why", string(KindCapabilityNotHonoured)} {
		assert.True(t, strings.Contains(msg, part), "%q lacks %q", msg, part)
	}
	assert.True(t, IsKind(wrapped, KindCapabilityNotHonoured))
	assert.False(t, IsKind(wrapped, KindStuckWorking))
	assert.False(t, IsKind(errors.New("x"), KindStuckWorking))
	c := CapabilityNotHonoured("t1", "pushNotifications", "push config refused")
	assert.Equal(t, "pushNotifications=true", c.Declared)
}
