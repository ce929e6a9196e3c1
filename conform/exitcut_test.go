package conform

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// TestReportJournalEndsAtClientExit: the journal a report carries is what
// the client experienced, cut where its process ended, so that the same
// suite and seed give the same journal however fast the mock shuts down.
// In connection-reset the agent creates the task and resets the
// connection; the naive client reports the error and exits while the
// task's timeline goes on (working, completed). The mock's timers are a
// fake clock's, so the timeline moves only when the test moves it: in one
// run not at all, in the other to completed between the client's exit and
// the mock's shutdown (what a slow shutdown on a loaded machine lets
// happen).
func TestReportJournalEndsAtClientExit(t *testing.T) {
	t.Parallel()
	run := func(late bool) *ScenarioResult {
		clock := heldClock{timeline.NewFakeClock(time.Now())}
		hooks := &runHooks{clock: clock}
		if late {
			hooks.exited = func(m *mock) { runToState(t, clock.FakeClock, m.srv, wire.StateCompleted) }
		}
		return runOneWith(t, Options{Client: fakeCommand("naive"), Scenarios: []string{"connection-reset"},
			Startup: 5 * time.Second, KeepJournal: true, hooks: hooks})
	}
	prompt, late := run(false), run(true)
	if prompt.Error != "" || late.Error != "" {
		t.Fatalf("runner errors: %q, %q", prompt.Error, late.Error)
	}
	a, b := timeless(prompt.Journal), timeless(late.Journal)
	if !slices.Equal(a, b) {
		t.Errorf("the same scenario and seed gave two journals:\nmock shut down at once (%d entries):\n%s\nmock shut down after the task completed (%d entries):\n%s",
			len(a), lines(a), len(b), lines(b))
	}
	for _, res := range []*ScenarioResult{prompt, late} {
		if res.JournalEntries != len(res.Journal) {
			t.Errorf("journalEntries %d, but the journal holds %d entries", res.JournalEntries, len(res.Journal))
		}
		for _, e := range res.Journal {
			if e.State == wire.StateWorking || e.State == wire.StateCompleted {
				t.Errorf("the report's journal holds #%d %s %s, which the agent reached after the client exited", e.Seq, e.Kind, e.State)
			}
		}
		for _, c := range res.Checks {
			for _, e := range c.Evidence.Journal {
				if e.Seq > int64(len(res.Journal)) {
					t.Errorf("%s cites #%d %s, past the report's journal (%d entries)", c.ID, e.Seq, e.Kind, len(res.Journal))
				}
			}
		}
	}
	for i, c := range prompt.Checks {
		d := late.Checks[i]
		// exits-in-time's reason gives the client's time, which varies.
		sameReason := c.Reason == d.Reason || c.ID == "exits-in-time"
		if c.Pass != d.Pass || !sameReason || !slices.Equal(timeless(c.Evidence.Journal), timeless(d.Evidence.Journal)) {
			t.Errorf("check %s: %v %q (evidence %v) then %v %q (evidence %v)", c.ID, c.Pass, c.Reason, timeless(c.Evidence.Journal), d.Pass, d.Reason, timeless(d.Evidence.Journal))
		}
	}
}

// heldClock reads the wall clock, but its timers fire only when the fake
// clock is moved: the journal's times stay comparable with the wire's and
// the client's exit, as the checks compare them, while the timeline waits
// for the test.
type heldClock struct{ *timeline.FakeClock }

func (heldClock) Now() time.Time { return time.Now() }

// runToState moves the fake clock from one pending timer to the next until
// the journal holds an event with state st (the scenario's timeline has
// reached it), or fails the test after 10s.
func runToState(t *testing.T, clock *timeline.FakeClock, srv *server.Server, st wire.TaskState) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		changed, _, _ := srv.Journal().Watch()
		if slices.ContainsFunc(srv.Journal().Entries(), func(e server.Entry) bool { return e.Kind == server.EntryEvent && e.State == st }) {
			return
		}
		if clock.AdvanceToNext() {
			continue
		}
		// Nothing waits on the clock yet: wait for a timer or a journal
		// entry, whichever comes first.
		wait, stop := context.WithCancel(ctx)
		go func() {
			select {
			case <-changed:
			case <-wait.Done():
			}
			stop()
		}()
		_ = clock.BlockUntilContext(wait, 1)
		stop()
		if ctx.Err() != nil {
			t.Errorf("the task did not reach %s within 10s of moving the clock", st)
			return
		}
	}
}

// timeless renders journal entries without their times, one JSON object
// each: what must be the same in two runs of a scenario with one seed.
func timeless(es []server.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		e.Time = time.Time{}
		b, _ := json.Marshal(e)
		out[i] = string(b)
	}
	return out
}

func lines(ss []string) string {
	var out string
	for _, s := range ss {
		out += "  " + s + "\n"
	}
	return out
}

// TestResetSeenBeforeExitIsNotOpen: in connection-reset the naive client
// reports the reset and exits at once, which may be before the mock's
// handler, having closed the connection, has returned. The SendMessage's
// record ends at the close (what the client saw), so it is the same in
// every run: taken over, faulted, finished before the exit, not open at
// it. Before, one run in a few dozen on a loaded machine recorded it open
// at the exit.
func TestResetSeenBeforeExitIsNotOpen(t *testing.T) {
	t.Parallel()
	var ws []WireRecord
	res := runOneWith(t, Options{Client: fakeCommand("naive"), Scenarios: []string{"connection-reset"}, Startup: 5 * time.Second,
		hooks: &runHooks{wire: func(w []WireRecord) { ws = w }}})
	if o := res.Process.Outcome; o == nil || !strings.Contains(o.Detail, "reset") {
		t.Errorf("the client reported %+v; want the reset", o)
	}
	sends := 0
	for _, w := range ws {
		if w.RPCMethod != "SendMessage" {
			continue
		}
		sends++
		if w.Open || !w.Hijacked || !w.Faulted || w.End.After(res.Process.Exited) {
			t.Errorf("the reset SendMessage recorded as\n%s\nending %v, the client exited %v; want taken over, faulted, finished before the exit",
				lines(wireless([]WireRecord{w})), w.End, res.Process.Exited)
		}
	}
	if sends != 1 {
		t.Errorf("%d SendMessage records, want 1:\n%s", sends, lines(wireless(ws)))
	}
}
