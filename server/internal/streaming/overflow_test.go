package streaming

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/engine"
	"github.com/a2amock/a2amock/journal"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// stallingFramer frames events as stateFramer does, but holds the stream
// at its first event until stalled returns: a client that does not read.
type stallingFramer struct {
	stateFramer
	once    sync.Once
	stalled func(taskID string)
}

func (f *stallingFramer) Event(ev wire.Event) ([]byte, error) {
	f.once.Do(func() { f.stalled(ev.TaskID()) })
	return json.Marshal(string(ev.State()))
}

// TestOverflowedStreamJournalsItsEndFirst: a stream whose client reads
// slower than the agent emits (more events than engine.SubscriberBuffer
// while it is stalled) ends with an error frame; the stream's close entry
// saying so is journaled before that frame can reach the client, as every
// event's entry is.
func TestOverflowedStreamJournalsItsEndFirst(t *testing.T) {
	t.Parallel()
	steps := timeline.Timeline{{Kind: timeline.StepState, State: wire.StateWorking}}
	for i := range engine.SubscriberBuffer + 50 {
		id := fmt.Sprintf("a-%d", i)
		steps = append(steps, timeline.Step{Kind: timeline.StepArtifact, Artifact: &wire.Artifact{ArtifactID: id, Parts: []wire.Part{{Text: id}}}})
	}
	steps = append(steps, timeline.Step{Kind: timeline.StepState, State: wire.StateCompleted})
	st, j, req, x := newTestStream(t, func(c *engine.Config) {
		c.Timelines = map[string]timeline.Timeline{}
		for _, sk := range c.Card.Skills {
			c.Timelines[sk.ID] = steps
		}
	})
	eng := st.Agent
	framer := &stallingFramer{stalled: func(id string) {
		// The agent plays its whole timeline while the stream is stalled.
		require.Eventually(t, func() bool {
			task := eng.Snapshot(id)
			return task != nil && task.Status.State == wire.StateCompleted
		}, 10*time.Second, time.Millisecond)
	}}
	const errorFrame = `data: "error"`
	var flushedError, closedFirst bool
	w := &flushCheck{ResponseRecorder: httptest.NewRecorder(), seen: func(body string) {
		if strings.Contains(body, errorFrame) && !flushedError {
			flushedError = true
			closedFirst = len(j.Filter(0, "a", "", journal.EntryStreamClose)) == 1
		}
	}}
	require.NoError(t, st.Serve(w, httptest.NewRequest(http.MethodPost, "/", nil), req, x, 1, framer, nil, nil))

	closes := j.Filter(0, "a", "", journal.EntryStreamClose)
	require.Len(t, closes, 1)
	assert.Equal(t, "client too slow: events overflowed", closes[0].Detail)
	assert.True(t, strings.HasSuffix(w.Body.String(), errorFrame+"\n\n"), "the stream ends with the error frame: ...%q", w.Body.String()[max(0, w.Body.Len()-80):])
	if flushedError {
		assert.True(t, closedFirst, "the error frame was flushed before the stream's end was journaled")
	}
	events := j.Filter(0, "a", "", journal.EntryStreamEvent)
	assert.Less(t, len(events), len(steps), "events were lost to the overflow")
	assert.Equal(t, strings.Count(w.Body.String(), "data: ")-1, len(events), "every event the client received is journaled")
}
