package server

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCallPool checks that a call runs on a worker and returns when it is
// done, that an idle worker takes the next call (no new goroutine), that a
// panic comes back to the caller, that concurrent calls each get a worker,
// and that every worker ends with the context.
func TestCallPool(t *testing.T) {
	p := newCallPool()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup

	ran := false
	p.run(ctx, &wg, func() { ran = true })
	assert.True(t, ran, "run returns after the call")
	assert.EqualValues(t, 1, p.started.Load())

	// The worker is back waiting for work once the call returned; it is
	// ready for the next call as soon as the scheduler has run it.
	for range 100 {
		p.run(ctx, &wg, func() {})
	}
	assert.Less(t, p.started.Load(), int64(100), "idle workers are reused")

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
