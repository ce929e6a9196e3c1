package pushqueue

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors/core"
	"github.com/a2amock/a2amock/wire"
)

// recorder is a Deliverer that keeps what it was given and can hold the
// first delivery back.
type recorder struct {
	mu   sync.Mutex
	jobs []string
	hold chan struct{}
}

func (r *recorder) Deliver(agent string, job Job) {
	if r.hold != nil {
		<-r.hold
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.jobs = append(r.jobs, agent+" "+job.Config.ID+" "+string(job.Event.State()))
}

func status(s wire.TaskState) wire.Event {
	return wire.Event{Status: &wire.StatusUpdate{TaskID: "t", Status: wire.TaskStatus{State: s}}}
}

// TestQueueDeliversInOrderToEveryConfig: notifications queued while the
// first is held back are delivered after it, in order, to each config;
// FirstDone closes after the first try; the drain goroutine ends.
func TestQueueDeliversInOrderToEveryConfig(t *testing.T) {
	t.Parallel()
	rec := &recorder{hold: make(chan struct{})}
	var players sync.WaitGroup
	h := &Host{Agent: "a", Deliverer: rec, Players: &players, Context: context.Background()}
	q := New(nil)
	cfgs := []wire.PushConfig{{ID: "c1"}, {ID: "c2"}}
	q.Push(h, cfgs, wire.V10, status(wire.StateWorking))
	q.Push(h, cfgs[:1], wire.V10, status(wire.StateCompleted))
	select {
	case <-q.FirstDone():
		t.Fatal("first delivery reported before it was tried")
	default:
	}
	close(rec.hold)
	<-q.FirstDone()
	players.Wait()
	assert.Equal(t, []string{"a c1 working", "a c2 working", "a c1 completed"}, rec.jobs)
}

// TestFiltersRunOnTheDrainGoroutine: a push behavior's filter that drops
// working notifications leaves only the others; after the host's context
// ends no drain starts.
func TestFiltersRunOnTheDrainGoroutine(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	var players sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	h := &Host{Agent: "a", Deliverer: rec, Players: &players, Context: ctx}
	hooks := &core.PushHooks{Filters: []func(wire.Event, core.PushDeliver){func(ev wire.Event, deliver core.PushDeliver) {
		if ev.State() != wire.StateWorking {
			deliver(ev, core.PushOptions{})
		}
	}}}
	q := New(hooks)
	q.Push(h, []wire.PushConfig{{ID: "c"}}, wire.V10, status(wire.StateWorking))
	q.Push(h, []wire.PushConfig{{ID: "c"}}, wire.V10, status(wire.StateCompleted))
	players.Wait()
	require.Equal(t, []string{"a c completed"}, rec.jobs)

	cancel()
	q2 := New(nil)
	q2.Push(h, []wire.PushConfig{{ID: "c"}}, wire.V10, status(wire.StateWorking))
	players.Wait()
	assert.Len(t, rec.jobs, 1, "nothing is delivered once the host closed")
}
