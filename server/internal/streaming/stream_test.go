package streaming

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/engine"
	"github.com/a2amock/a2amock/journal"
	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// stateFramer frames each event as its task state only.
type stateFramer struct{}

func (stateFramer) Event(ev wire.Event) ([]byte, error) { return json.Marshal(string(ev.State())) }
func (stateFramer) ErrorFrame(e *wire.Error) []byte     { return []byte(`"error"`) }
func (stateFramer) Refuse(w http.ResponseWriter, e *wire.Error) error {
	w.WriteHeader(http.StatusBadRequest)
	return nil
}
func (stateFramer) RPCID() json.RawMessage                          { return nil }
func (stateFramer) Open(w http.ResponseWriter) binding.StreamWriter { return sse.NewWriter(w) }

// TestHonestStreamIsJournaledAsWritten streams a new task of an honest
// agent with no step delay: the client reads submitted (the opening task),
// working, the artifact (no state) and completed; the journal has one stream-event entry per
// event written, the stream's response, and a close entry saying it
// completed.
func TestHonestStreamIsJournaledAsWritten(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var players sync.WaitGroup
	defer players.Wait()
	defer cancel()
	clock := timeline.NewFakeClock(time.Unix(0, 0))
	eng, err := engine.New(engine.Config{Name: "a", Card: cards.Generate("a", 1), Seed: 1, Clock: clock,
		Context: ctx, HostContext: ctx, Players: &players})
	require.NoError(t, err)

	j := journal.New(100)
	var mu sync.Mutex
	var responses []string
	st := &Stream{Agent: eng, AgentName: "a", Clock: clock, KeepAlive: time.Hour, ServerCtx: ctx, AgentCtx: ctx,
		Record: j.Add,
		Respond: func(res *wire.Result, e *wire.Error) {
			mu.Lock()
			defer mu.Unlock()
			responses = append(responses, res.Task.ID)
		}}
	req := &wire.Request{Op: wire.OpStream, Method: "SendStreamingMessage", Dialect: wire.V10, Binding: wire.BindingJSONRPC,
		Message: &wire.Message{MessageID: "m1", Role: wire.RoleUser, Parts: []wire.Part{{Text: "hi"}}}}
	x := &behaviors.Exchange{Agent: "a", Op: wire.OpStream, Request: req, Clock: clock}
	rec := httptest.NewRecorder()
	require.NoError(t, st.Serve(rec, httptest.NewRequest(http.MethodPost, "/", nil), req, x, 1, stateFramer{}, nil, nil))

	var got []string
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			got = append(got, data)
		}
	}
	assert.Equal(t, []string{`"submitted"`, `"working"`, `""`, `"completed"`}, got)
	mu.Lock()
	assert.Len(t, responses, 1, "the stream's start is its response")
	mu.Unlock()
	events := j.Filter(0, "a", "", journal.EntryStreamEvent)
	require.Len(t, events, 4)
	assert.Contains(t, events[2].Detail, "artifact")
	assert.Equal(t, wire.StateCompleted, events[3].State)
	closes := j.Filter(0, "a", "", journal.EntryStreamClose)
	require.Len(t, closes, 1)
	assert.Equal(t, "complete: "+string(wire.StateCompleted), closes[0].Detail)
}
