package server_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// TestMaxRunningTasksDropsTheOldest: tasks that never finish grew the
// store without bound (RSS 15 MB → 528 MB over 200,000 never-terminal
// sends). Past MaxRunningTasks the oldest running task is dropped and
// journaled; the behavior itself keeps acting on every new task.
func TestMaxRunningTasksDropsTheOldest(t *testing.T) {
	t.Parallel()
	nt, err := behaviors.Parse("never-terminal")
	require.NoError(t, err)
	agents := agentsFor(dialectCases[0], false)
	agents[0].Behaviors = []behaviors.Behavior{nt}
	h := start(t, server.Config{Seed: 5, StepDelay: -1, MaxRunningTasks: 3, Agents: agents})
	cl := newClient(t, h, dialectCases[0])
	var ids []string
	for range 5 {
		ids = append(ids, cl.mustSend(sendOpts{immediate: true}).ID)
	}
	for i, id := range ids {
		tk, e := cl.get(id, nil)
		if i < 2 {
			require.NotNil(t, e, "task %d should have been dropped", i)
			assert.Equal(t, wire.CodeTaskNotFound, e.Code)
			continue
		}
		require.Nil(t, e, "task %d", i)
		assert.Equal(t, wire.StateWorking, tk.State, "never-terminal still holds task %d", i)
	}
	var dropped []string
	for _, en := range h.srv.Journal().Entries() {
		if en.Kind == server.EntryDropped {
			dropped = append(dropped, en.TaskID)
			assert.Contains(t, en.Detail, "MaxRunningTasks")
			assert.Equal(t, wire.StateWorking, en.State)
		}
	}
	assert.Equal(t, ids[:2], dropped)
	assert.Equal(t, 3, listOver(h, false)(t, map[string]any{}).TotalSize)
}

// TestTaskRetentionBytes: 600 sends of 1 MiB took 980 MB, because the store
// bounded tasks by count only. Past TaskRetentionBytes the oldest tasks
// are forgotten.
func TestTaskRetentionBytes(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 5, StepDelay: -1, TaskRetentionBytes: 20_000, Agents: agentsFor(dialectCases[0], false)})
	cl := newClient(t, h, dialectCases[0])
	big := strings.Repeat("x", 4000)
	var last string
	for range 30 {
		last = cl.mustSend(sendOpts{text: big}).ID
	}
	total := listOver(h, false)(t, map[string]any{}).TotalSize
	assert.LessOrEqual(t, total, 5, "20,000 bytes hold at most five tasks of 4,000 bytes of text")
	assert.Positive(t, total)
	_, e := cl.get(last, nil)
	assert.Nil(t, e, "the newest task is kept")
	for _, en := range h.srv.Journal().Entries() {
		assert.NotEqual(t, server.EntryDropped, en.Kind, "terminal tasks are forgotten quietly, as by TaskRetention")
	}
}
