package testkit_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// recT records failures instead of failing the test, so an assertion's
// failure and its message can be checked.
type recT struct {
	mu      sync.Mutex
	msgs    []string
	helpers map[string]bool // functions that called Helper
	at      []string        // where testing.T would say each failure happened
}

func (r *recT) Errorf(format string, args ...any) {
	at := reportedAt(r.isHelper)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
	r.at = append(r.at, at)
}

// Helper marks the function that calls it, as testing.T's does.
func (r *recT) Helper() {
	var pc [1]uintptr
	runtime.Callers(2, pc[:])
	frame, _ := runtime.CallersFrames(pc[:]).Next()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.helpers == nil {
		r.helpers = map[string]bool{}
	}
	r.helpers[frame.Function] = true
}

func (r *recT) isHelper(function string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.helpers[function]
}

func (r *recT) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.msgs, "\n")
}

// reportedAt is the file:line testing.T gives a failure reported by its
// caller's caller: the first frame up the stack whose function did not
// call Helper.
func reportedAt(isHelper func(string) bool) string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	for {
		f, more := frames.Next()
		if !isHelper(f.Function) {
			return fmt.Sprintf("%s:%d", f.File, f.Line)
		}
		if !more {
			return "(every frame a helper)"
		}
	}
}

// inTestkitTest reports whether a failure's position is in one of this
// package's test files, as a failing assertion's should be: testkit's and
// check's own functions all mark themselves helpers.
func inTestkitTest(at string) bool {
	file, _, _ := strings.Cut(at, ":")
	return filepath.Base(filepath.Dir(file)) == "testkit" && strings.HasSuffix(file, "_test.go")
}

// fails runs an assertion on a recording T and checks that it failed, at
// the test's line, and that its message contains every want.
func fails(t *testing.T, run func(rt *recT) bool, want ...string) string {
	t.Helper()
	rt := &recT{}
	ok := run(rt)
	assert.False(t, ok, "the assertion should have failed")
	msg := rt.text()
	require.NotEmpty(t, msg, "a failing assertion reports through t")
	for _, w := range want {
		assert.Contains(t, msg, w)
	}
	for _, at := range rt.at {
		assert.True(t, inTestkitTest(at), "the failure is reported at %s, not at the test's line", at)
	}
	return msg
}

// passes runs an assertion on a recording T and checks that it passed.
func passes(t *testing.T, run func(rt *recT) bool) {
	t.Helper()
	rt := &recT{}
	assert.True(t, run(rt))
	assert.Empty(t, rt.text())
}

// jb builds a synthetic journal the way the server writes one.
type jb struct {
	t0      time.Time
	seq     int64
	req     int64
	entries []server.Entry
}

func newJB() *jb { return &jb{t0: time.Date(2026, 11, 12, 9, 0, 0, 0, time.UTC)} }

func (b *jb) add(e server.Entry) {
	b.seq++
	e.Seq = b.seq
	e.Time = b.t0.Add(time.Duration(b.seq) * time.Second)
	if e.Agent == "" {
		e.Agent = "gamma"
	}
	if e.Binding == "" {
		e.Binding, e.Dialect, e.Path = wire.BindingJSONRPC, wire.V03, "/agents/gamma/"
	}
	b.entries = append(b.entries, e)
}

// call adds a request and its response; taskID is the request's task (get,
// cancel), ref the message's taskId, answer the task id answered.
func (b *jb) call(op wire.Op, method, taskID, ref, answer string, state wire.TaskState, code int) {
	b.req++
	b.add(server.Entry{Kind: server.EntryRequest, Op: op, Method: method, Request: b.req, TaskID: taskID, RefTaskID: ref, MessageID: fmt.Sprintf("m%d", b.req)})
	b.add(server.Entry{Kind: server.EntryResponse, Op: op, Method: method, Request: b.req, TaskID: answer, RefTaskID: ref, State: state, ErrorCode: code})
}

func (b *jb) event(taskID string, states ...wire.TaskState) {
	for _, s := range states {
		b.add(server.Entry{Kind: server.EntryEvent, TaskID: taskID, State: s})
	}
}

func (b *jb) journal() []server.Entry { return append([]server.Entry(nil), b.entries...) }

// fieldJournal is the field incident as the agent's journal shows it: t1
// stays working, the continuation to it is answered with t2, t1 is polled
// five times and never canceled.
func fieldJournal() *jb {
	b := newJB()
	b.call(wire.OpStream, "message/stream", "", "", "t1", "", 0)
	b.event("t1", wire.StateSubmitted, wire.StateWorking)
	b.call(wire.OpSend, "message/send", "", "t1", "t2", wire.StateCompleted, 0)
	b.event("t2", wire.StateSubmitted, wire.StateWorking, wire.StateCompleted)
	for range 5 {
		b.call(wire.OpGetTask, "tasks/get", "t1", "", "t1", wire.StateWorking, 0)
	}
	return b
}

func TestAssertNoOrphans(t *testing.T) {
	t.Parallel()
	b := fieldJournal()
	msg := fails(t, func(rt *recT) bool { return testkit.AssertNoOrphans(rt, b.journal()) },
		`task "t1"`, "agent gamma", "orphaned", "declared:", "ends terminal or is canceled by the client",
		"observed:", "last state working", "never canceled", "client did:", "created it with message/stream ×1",
		"message/send (continuation) ×1", "tasks/get ×5")
	assert.NotContains(t, msg, `"t2"`, "t2 completed: not an orphan")

	refused := fieldJournal()
	refused.call(wire.OpCancelTask, "tasks/cancel", "t1", "", "t1", "", wire.CodeTaskNotCancelable)
	fails(t, func(rt *recT) bool { return testkit.AssertNoOrphans(rt, refused.journal()) }, `task "t1"`, "cancel refused with error -32002")

	b.call(wire.OpCancelTask, "tasks/cancel", "t1", "", "t1", wire.StateCanceled, 0)
	b.event("t1", wire.StateCanceled)
	passes(t, func(rt *recT) bool { return testkit.AssertNoOrphans(rt, b.journal()) })

	// An agent that acknowledges the cancel and keeps working
	// (ignore-cancel): the client did its part.
	ignored := fieldJournal()
	ignored.call(wire.OpCancelTask, "tasks/cancel", "t1", "", "t1", wire.StateWorking, 0)
	passes(t, func(rt *recT) bool { return testkit.AssertNoOrphans(rt, ignored.journal()) })

	// Input-required is an orphan too when the client walks away.
	parked := newJB()
	parked.call(wire.OpSend, "SendMessage", "", "", "p1", wire.StateInputRequired, 0)
	parked.event("p1", wire.StateSubmitted, wire.StateWorking, wire.StateInputRequired)
	fails(t, func(rt *recT) bool { return testkit.AssertNoOrphans(rt, parked.journal()) }, `task "p1"`, "last state input-required")
	passes(t, func(rt *recT) bool { return testkit.AssertNoOrphans(rt, nil) })
}

func TestAssertPolledAtMost(t *testing.T) {
	t.Parallel()
	j := fieldJournal().journal()
	passes(t, func(rt *recT) bool { return testkit.AssertPolledAtMost(rt, j, "t1", 5) })
	passes(t, func(rt *recT) bool { return testkit.AssertPolledAtMost(rt, j, "t2", 0) })
	fails(t, func(rt *recT) bool { return testkit.AssertPolledAtMost(rt, j, "t1", 4) },
		`task "t1"`, "polled 5 times, more than 4", "declared:   at most 4 GetTask polls", "observed:   5 GetTask polls", "submitted → working")
}

func TestAssertStoppedPollingWithin(t *testing.T) {
	t.Parallel()
	j := fieldJournal().journal()
	// t1 is first named at entry 2 (t0+2s); its last poll request is entry
	// 18 (t0+18s): 16s after creation.
	passes(t, func(rt *recT) bool { return testkit.AssertStoppedPollingWithin(rt, j, "t1", 16*time.Second) })
	passes(t, func(rt *recT) bool { return testkit.AssertStoppedPollingWithin(rt, j, "t2", time.Nanosecond) })
	fails(t, func(rt *recT) bool { return testkit.AssertStoppedPollingWithin(rt, j, "t1", 10*time.Second) },
		`task "t1"`, "still polled 16s after creation, beyond 10s", "declared:   no GetTask later than 10s", "observed:   last GetTask (entry 18) 16s")
}

func TestAssertCanceled(t *testing.T) {
	t.Parallel()
	b := fieldJournal()
	fails(t, func(rt *recT) bool { return testkit.AssertCanceled(rt, b.journal(), "t1") },
		`task "t1"`, "not canceled by the client", "declared:   the client cancels the task", "observed:   no CancelTask for it; task states submitted → working")
	fails(t, func(rt *recT) bool { return testkit.AssertCanceled(rt, b.journal(), "nope") }, `task "nope"`, "not in the journal")

	refused := fieldJournal()
	refused.call(wire.OpCancelTask, "tasks/cancel", "t2", "", "t2", "", wire.CodeTaskNotCancelable)
	fails(t, func(rt *recT) bool { return testkit.AssertCanceled(rt, refused.journal(), "t2") },
		`task "t2"`, "1 CancelTask, refused with error -32002", "tasks/cancel ×1")

	b.call(wire.OpCancelTask, "tasks/cancel", "t1", "", "t1", wire.StateCanceled, 0)
	passes(t, func(rt *recT) bool { return testkit.AssertCanceled(rt, b.journal(), "t1") })
}

func TestAssertNoContinuationTo(t *testing.T) {
	t.Parallel()
	b := fieldJournal()
	// The continuation that revealed the new task id is not itself late.
	passes(t, func(rt *recT) bool { return testkit.AssertNoContinuationTo(rt, b.journal(), "t1") })
	b.call(wire.OpSend, "message/send", "", "t1", "t3", wire.StateCompleted, 0)
	fails(t, func(rt *recT) bool { return testkit.AssertNoContinuationTo(rt, b.journal(), "t1") },
		`task "t1"`, "1 continuation(s) sent to a dead task",
		`declared:   no message to a task after it is dead; it died when a message to it was answered with another task, "t2"`,
		"observed:   continuations message/send (entry")

	// After a terminal state.
	done := newJB()
	done.call(wire.OpSend, "SendMessage", "", "", "d1", wire.StateCompleted, 0)
	done.event("d1", wire.StateSubmitted, wire.StateCompleted)
	passes(t, func(rt *recT) bool { return testkit.AssertNoContinuationTo(rt, done.journal(), "d1") })
	done.call(wire.OpStream, "SendStreamingMessage", "", "d1", "", "", wire.CodeUnsupportedOperation)
	fails(t, func(rt *recT) bool { return testkit.AssertNoContinuationTo(rt, done.journal(), "d1") },
		`task "d1"`, "it reached completed", "SendStreamingMessage (entry")

	// After the client's own cancel.
	c := newJB()
	c.call(wire.OpSend, "SendMessage", "", "", "c1", wire.StateWorking, 0)
	c.event("c1", wire.StateSubmitted, wire.StateWorking)
	c.call(wire.OpCancelTask, "CancelTask", "c1", "", "c1", wire.StateWorking, 0) // ignored by the agent
	c.call(wire.OpSend, "SendMessage", "", "c1", "c1", wire.StateWorking, 0)
	fails(t, func(rt *recT) bool { return testkit.AssertNoContinuationTo(rt, c.journal(), "c1") }, "the client canceled it")
}

func TestAssertUsedDeclaredInterface(t *testing.T) {
	t.Parallel()
	card := &cards.Card{Name: "gamma", Dialect: wire.V03,
		Interfaces: []cards.Interface{{URL: "http://127.0.0.1:9/agents/gamma/", Binding: wire.BindingJSONRPC, Version: wire.V03}}}
	b := fieldJournal()
	passes(t, func(rt *recT) bool { return testkit.AssertUsedDeclaredInterface(rt, b.journal(), card) })

	b.add(server.Entry{Kind: server.EntryRequest, Op: wire.OpGetTask, Method: "GetTask", TaskID: "t1",
		Binding: wire.BindingJSONRPC, Dialect: wire.V10, Path: "/agents/gamma/"})
	b.add(server.Entry{Kind: server.EntryRequest, Op: wire.OpGetTask, Method: "tasks/get", TaskID: "t1",
		Binding: wire.BindingJSONRPC, Dialect: wire.V03, Path: "/agents/other/"})
	fails(t, func(rt *recT) bool { return testkit.AssertUsedDeclaredInterface(rt, b.journal(), card) },
		"agent gamma: 2 of 9 request(s)", "declared:   JSONRPC 0.3 at /agents/gamma/",
		`GetTask over JSONRPC 1.0 at /agents/gamma/ (entry 20, task "t1")`, "tasks/get over JSONRPC 0.3 at /agents/other/")

	fails(t, func(rt *recT) bool { return testkit.AssertUsedDeclaredInterface(rt, nil, card) }, "no request", "declared:   JSONRPC 0.3")

	// A request refused before its method was understood has no dialect:
	// its binding and path decide.
	r := fieldJournal()
	r.add(server.Entry{Kind: server.EntryRequest, Binding: wire.BindingJSONRPC, Path: "/agents/gamma/"})
	passes(t, func(rt *recT) bool { return testkit.AssertUsedDeclaredInterface(rt, r.journal(), card) })
	r.add(server.Entry{Kind: server.EntryRequest, Binding: wire.BindingREST, Path: "/agents/gamma/message:send"})
	fails(t, func(rt *recT) bool { return testkit.AssertUsedDeclaredInterface(rt, r.journal(), card) },
		"1 of 9 request(s)", "a request over HTTP+JSON at /agents/gamma/message:send")
	// Without interfaces the mock's defaults stand in.
	bare := &cards.Card{Name: "gamma", Dialect: wire.V03}
	passes(t, func(rt *recT) bool { return testkit.AssertUsedDeclaredInterface(rt, fieldJournal().journal(), bare) })
	fails(t, func(rt *recT) bool { return testkit.AssertUsedDeclaredInterface(rt, nil, nil) }, "no card")

	// A v1.0 card without interfaces stands for gRPC as well (a mock that
	// serves it declares it in every v1.0 card); a v0.3 one does not.
	grpcCall := server.Entry{Kind: server.EntryRequest, Op: wire.OpSend, Method: "SendMessage", Binding: wire.BindingGRPC, Dialect: wire.V10, Path: "/lf.a2a.v1.A2AService/SendMessage"}
	g := newJB()
	g.add(grpcCall)
	passes(t, func(rt *recT) bool {
		return testkit.AssertUsedDeclaredInterface(rt, g.journal(), &cards.Card{Name: "gamma", Dialect: wire.V10})
	})
	grpcCall.Dialect = wire.V03
	g.add(grpcCall)
	fails(t, func(rt *recT) bool {
		return testkit.AssertUsedDeclaredInterface(rt, g.journal(), &cards.Card{Name: "gamma", Dialect: wire.V03})
	}, "SendMessage over GRPC 0.3", "declared:   JSONRPC 0.3")
	fails(t, func(rt *recT) bool {
		return testkit.AssertUsedDeclaredInterface(rt, g.journal(), &cards.Card{Name: "gamma", Dialect: wire.V10})
	}, "1 of 2 request(s)", "GRPC 1.0 (when the mock serves gRPC)")
}

func divergedLedger() *reconcile.Ledger {
	declared := reconcile.Declared{Dialect: wire.V03, StateTransitionHistory: true}
	l := reconcile.NewLedger(reconcile.LedgerConfig{Declared: declared})
	_ = l.Observe(reconcile.Observation{TaskID: "t1", State: wire.StateSubmitted, Source: reconcile.SourceSendResponse})
	_ = l.Observe(reconcile.Observation{TaskID: "t1", State: wire.StateInputRequired, Source: reconcile.SourceStream})
	return l
}

func TestAssertLifecycle(t *testing.T) {
	t.Parallel()
	l := reconcile.NewLedger(reconcile.LedgerConfig{})
	for _, s := range []wire.TaskState{wire.StateSubmitted, wire.StateWorking, wire.StateWorking, wire.StateCompleted} {
		require.NoError(t, l.Observe(reconcile.Observation{TaskID: "t1", State: s, Source: reconcile.SourcePoll}))
	}
	passes(t, func(rt *recT) bool {
		return testkit.AssertLifecycle(rt, l, "t1", wire.StateSubmitted, wire.StateWorking, wire.StateCompleted)
	})
	fails(t, func(rt *recT) bool {
		return testkit.AssertLifecycle(rt, l, "t1", wire.StateSubmitted, wire.StateInputRequired, wire.StateWorking, wire.StateCompleted)
	}, `task "t1": lifecycle differs`, "client did: observed via poll ×4",
		"declared:   lifecycle submitted → input-required → working → completed",
		"observed:   states submitted → working → completed (outcome completed, last from poll)",
		"- 1 input-required", "+ 1 working", "- 3 completed")
	fails(t, func(rt *recT) bool { return testkit.AssertLifecycle(rt, l, "t9", wire.StateCompleted) }, `task "t9": never observed`)
	fails(t, func(rt *recT) bool { return testkit.AssertLifecycle(rt, nil, "t1") }, `task "t1"`)
}

func TestAssertNoUnreconciled(t *testing.T) {
	t.Parallel()
	l := reconcile.NewLedger(reconcile.LedgerConfig{})
	require.NoError(t, l.Observe(reconcile.Observation{TaskID: "t1", State: wire.StateSubmitted, Source: reconcile.SourceSendResponse}))
	require.NoError(t, l.Observe(reconcile.Observation{TaskID: "t1", State: wire.StateWorking, Source: reconcile.SourcePoll}))
	fails(t, func(rt *recT) bool { return testkit.AssertNoUnreconciled(rt, l) },
		"1 task(s) left unreconciled", `task "t1"`, "declared:   every task ends terminal, canceled or diverged",
		"observed:   states submitted → working (outcome pending, last from poll)", "observed via send ×1, poll ×1")
	require.NoError(t, l.Observe(reconcile.Observation{TaskID: "t1", State: wire.StateCanceled, Source: reconcile.SourceCancel}))
	passes(t, func(rt *recT) bool { return testkit.AssertNoUnreconciled(rt, l) })
	// A diverged task is reconciled: the client concluded about it.
	passes(t, func(rt *recT) bool { return testkit.AssertNoUnreconciled(rt, divergedLedger()) })
	fails(t, func(rt *recT) bool { return testkit.AssertNoUnreconciled(rt, nil) }, "no ledger")
}

func TestAssertDiverged(t *testing.T) {
	t.Parallel()
	l := divergedLedger()
	passes(t, func(rt *recT) bool { return testkit.AssertDiverged(rt, l, reconcile.KindInputRequiredWithoutWorking) })
	passes(t, func(rt *recT) bool {
		return testkit.AssertDiverged(rt, &reconcile.Result{Ledger: l}, reconcile.KindInputRequiredWithoutWorking)
	})
	fails(t, func(rt *recT) bool { return testkit.AssertDiverged(rt, l, reconcile.KindNewTaskIDOnContinuation) },
		"no task of the ledger diverged with kind new-task-id-on-continuation",
		"declared:   a divergence of kind new-task-id-on-continuation surfaced",
		`task "t1": states submitted → input-required (outcome diverged`, "input-required-without-working")

	err := fmt.Errorf("run: %w", &reconcile.DivergenceError{TaskID: "t7", Kind: reconcile.KindStuckWorking,
		Declared: "bounded wait 1s", Observed: "stuck in working for 2s"})
	passes(t, func(rt *recT) bool { return testkit.AssertDiverged(rt, err, reconcile.KindStuckWorking) })
	fails(t, func(rt *recT) bool { return testkit.AssertDiverged(rt, err, reconcile.KindStuckSubmitted) },
		`task "t7": divergence of another kind`, "card declared bounded wait 1s but observed stuck in working for 2s",
		"- 0 stuck-submitted", "+ 0 stuck-working")
	fails(t, func(rt *recT) bool { return testkit.AssertDiverged(rt, errors.New("boom"), reconcile.KindStuckWorking) }, "not a divergence", "boom")
	fails(t, func(rt *recT) bool { return testkit.AssertDiverged(rt, nil, reconcile.KindStuckWorking) }, "no divergence at all")
	fails(t, func(rt *recT) bool { return testkit.AssertDiverged(rt, 42, reconcile.KindStuckWorking) }, "cannot read a divergence from int")
	fails(t, func(rt *recT) bool {
		return testkit.AssertDiverged(rt, reconcile.NewLedger(reconcile.LedgerConfig{}), reconcile.KindStuckWorking)
	}, "no task in the ledger")
}

func TestFetchJournal(t *testing.T) {
	t.Parallel()
	mock := testkit.Start(t, testkit.WithAgents("w"), testkit.WithStepDelay(-1))
	c := testkit.NewClient(mock.AgentURL("w") + "/")
	t.Cleanup(c.CloseIdleConnections)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	task, err := c.Send(ctx, &wire.Message{MessageID: "m-hi", Role: wire.RoleUser, Parts: []wire.Part{wire.TextPart("hi")}}, reconcile.SendOptions{})
	require.NoError(t, err)

	fetched := testkit.FetchJournal(t, mock.URL)
	require.NotEmpty(t, fetched)
	assert.Equal(t, mock.Journal(), fetched, "the journal over HTTP is the journal in Go")
	testkit.AssertNoOrphans(t, fetched)
	testkit.AssertPolledAtMost(t, fetched, task.ID, 0)

	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	rt := &recT{}
	assert.Nil(t, testkit.FetchJournal(rt, srv.URL))
	assert.Contains(t, rt.text(), "HTTP 404")
}
