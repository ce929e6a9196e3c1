package taskstore

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

type entry struct {
	task    *wire.Task
	size    int64
	seq     uint64
	stopped bool
	subs    int
}

func (e *entry) Task() *wire.Task { return e.task }
func (e *entry) Evictable() bool  { return e.task.Status.State.Terminal() && e.subs == 0 }
func (e *entry) Size() int64      { return e.size }
func (e *entry) SetSize(n int64)  { e.size = n }
func (e *entry) SetSeq(n uint64)  { e.seq = n }
func (e *entry) Stop()            { e.stopped = true }

func newEntry(i int, state wire.TaskState) *entry {
	return &entry{task: &wire.Task{ID: "t" + strconv.Itoa(i), Status: wire.TaskStatus{State: state}}}
}

func ids(s *Store[*entry]) []string {
	var out []string
	for _, e := range s.Order {
		out = append(out, e.task.ID)
	}
	return out
}

// TestEvictForgetsTerminalTasksOnly: past the retention the oldest
// terminal tasks without streams go; running ones and watched ones stay.
func TestEvictForgetsTerminalTasksOnly(t *testing.T) {
	t.Parallel()
	var s Store[*entry]
	s.Reset()
	es := []*entry{newEntry(0, wire.StateWorking), newEntry(1, wire.StateCompleted), newEntry(2, wire.StateCompleted), newEntry(3, wire.StateCompleted)}
	es[2].subs = 1
	for _, e := range es {
		s.Add(e)
	}
	assert.Equal(t, uint64(4), es[3].seq)
	s.Evict(2)
	assert.Equal(t, []string{"t0", "t2"}, ids(&s), "t1 and t3 went; t0 runs and t2 is watched, so they stay over the retention")
	_, ok := s.Tasks["t1"]
	assert.False(t, ok)
}

// TestBoundDropsTheOldestRunningButNotTheCurrent: past MaxRunningTasks the
// oldest running task other than the current one is stopped and dropped;
// past the byte bound terminal tasks go first.
func TestBoundDropsTheOldestRunningButNotTheCurrent(t *testing.T) {
	t.Parallel()
	var s Store[*entry]
	s.Reset()
	es := []*entry{newEntry(0, wire.StateWorking), newEntry(1, wire.StateWorking), newEntry(2, wire.StateWorking)}
	for _, e := range es {
		s.Add(e)
	}
	dropped := s.Bound(es[0], Limits{MaxRunningTasks: 2, TaskRetentionBytes: 1 << 20})
	require.Len(t, dropped, 1)
	assert.Equal(t, "t1", dropped[0].Task.ID, "t0 is the current task")
	assert.True(t, es[1].stopped)
	assert.Contains(t, dropped[0].Why, "MaxRunningTasks")
	assert.Equal(t, []string{"t0", "t2"}, ids(&s))

	done := newEntry(3, wire.StateCompleted)
	s.Add(done)
	s.NoteState(wire.StateWorking, wire.StateCompleted)
	s.Resize(done, 100)
	s.Resize(es[2], 100)
	dropped = s.Bound(es[2], Limits{MaxRunningTasks: 10, TaskRetentionBytes: 150})
	assert.Empty(t, dropped, "the terminal task went first, with no note")
	assert.Equal(t, []string{"t0", "t2"}, ids(&s))
}

// TestEvictFromTheFrontKeepsTheNewest: completed tasks added one at a time
// past the retention leave exactly the newest ones, in order, in both the
// order and the index (the front is dropped without moving the rest).
func TestEvictFromTheFrontKeepsTheNewest(t *testing.T) {
	t.Parallel()
	var s Store[*entry]
	s.Reset()
	for i := range 1000 {
		s.Add(newEntry(i, wire.StateCompleted))
		s.Evict(3)
	}
	assert.Equal(t, []string{"t997", "t998", "t999"}, ids(&s))
	assert.Len(t, s.Tasks, 3)
	assert.LessOrEqual(t, cap(s.Order), 16, "the dropped front does not keep the array growing")
}

// TestForgottenIsToldOfEveryTaskForgotten: Forgotten hears of each task
// the store forgets, evicted from the front, by a sweep or dropped by
// Bound, once it has left Tasks; Reset keeps it.
func TestForgottenIsToldOfEveryTaskForgotten(t *testing.T) {
	t.Parallel()
	var s Store[*entry]
	var gone []string
	s.Forgotten = func(e *entry) {
		_, held := s.Tasks[e.task.ID]
		assert.False(t, held, "%s is told once forgotten", e.task.ID)
		gone = append(gone, e.task.ID)
	}
	s.Reset()
	require.NotNil(t, s.Forgotten)
	for i := range 3 {
		s.Add(newEntry(i, wire.StateCompleted))
	}
	s.Evict(2)
	assert.Equal(t, []string{"t0"}, gone, "evicted from the front")

	gone = nil
	running := make([]*entry, evictLookAhead)
	for i := range running {
		running[i] = newEntry(100+i, wire.StateWorking)
		s.Add(running[i])
	}
	s.Add(newEntry(999, wire.StateCompleted))
	for range 10 {
		s.Evict(evictLookAhead)
	}
	assert.Equal(t, []string{"t1", "t2"}, gone, "swept past the running ones")

	gone = nil
	dropped := s.Bound(running[1], Limits{MaxRunningTasks: s.running - 1, TaskRetentionBytes: 1 << 20})
	require.Len(t, dropped, 1)
	assert.Equal(t, []string{"t100"}, gone, "dropped")
}

// TestMatching: ListTasks' filters, in creation order; the status time is
// compared to the millisecond, as the wire shows it.
func TestMatching(t *testing.T) {
	t.Parallel()
	var s Store[*entry]
	s.Reset()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, c := range []struct {
		ctx   string
		state wire.TaskState
		at    time.Duration
	}{
		{"a", wire.StateCompleted, 0},
		{"b", wire.StateWorking, time.Millisecond + 700*time.Microsecond},
		{"a", wire.StateWorking, 2 * time.Millisecond},
		{"a", wire.StateCompleted, 3 * time.Millisecond},
	} {
		e := newEntry(i, c.state)
		e.task.ContextID, e.task.Status.Timestamp = c.ctx, t0.Add(c.at)
		s.Add(e)
	}
	match := func(q wire.ListTasksQuery) []string {
		var out []string
		for _, e := range s.Matching(q) {
			out = append(out, e.task.ID)
		}
		return out
	}
	assert.Equal(t, []string{"t0", "t1", "t2", "t3"}, match(wire.ListTasksQuery{}))
	assert.Equal(t, []string{"t0", "t2", "t3"}, match(wire.ListTasksQuery{ContextID: "a"}))
	assert.Equal(t, []string{"t1", "t2"}, match(wire.ListTasksQuery{State: wire.StateWorking}))
	assert.Equal(t, []string{"t3"}, match(wire.ListTasksQuery{ContextID: "a", State: wire.StateCompleted, StatusTimestampAfter: t0.Add(time.Millisecond)}))
	// t1's 1.7 ms shows as 1 ms on the wire: a filter at its shown time
	// selects it, one a millisecond later does not.
	assert.Equal(t, []string{"t1", "t2", "t3"}, match(wire.ListTasksQuery{StatusTimestampAfter: t0.Add(time.Millisecond)}))
	assert.Equal(t, []string{"t2", "t3"}, match(wire.ListTasksQuery{StatusTimestampAfter: t0.Add(1500 * time.Microsecond)}))
}
