package grpcbind

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCallPool checks that a call runs on a worker and returns when it is
// done, that an idle worker takes the next call (no new goroutine), that a
// panic comes back to the caller, that concurrent calls each get a worker,
// and that every worker ends with the context.
func TestCallPool(t *testing.T) {
	p := newCallPool()
	p.idle = time.Hour // no worker leaves by its timer while the test hands it work
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup

	ran := false
	p.run(ctx, &wg, func() { ran = true })
	assert.True(t, ran, "run returns after the call")
	assert.EqualValues(t, 1, p.started.Load())

	// The worker goes back to waiting for work once the call returned. How
	// soon it gets there is the scheduler's business (a run arriving first
	// starts another worker, which is correct), so the test hands the next
	// call straight to the pool's queue: only a kept worker can take it.
	took := make(chan struct{})
	select {
	case p.work <- func() { close(took) }:
	case <-time.After(time.Minute): // only a pool that keeps no worker gets here
		t.Fatal("no kept worker took the next call")
	}
	<-took
	assert.EqualValues(t, 1, p.started.Load(), "the idle worker took the next call")

	assert.PanicsWithValue(t, "boom", func() { p.run(ctx, &wg, func() { panic("boom") }) })

	var calls sync.WaitGroup
	hold := make(chan struct{})
	for range 8 {
		calls.Go(func() { p.run(ctx, &wg, func() { <-hold }) })
	}
	close(hold)
	calls.Wait()

	cancel()
	wg.Wait() // every worker ended with the context
	before := p.started.Load()
	ran = false
	p.run(ctx, &wg, func() { ran = true })
	require.True(t, ran, "after the context ends a call runs on the caller's goroutine")
	assert.Equal(t, before, p.started.Load())
}
