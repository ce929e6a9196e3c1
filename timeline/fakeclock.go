package timeline

import (
	"context"
	"sort"
	"sync"
	"time"
)

// FakeClock is a Clock whose time moves only when Advance is called, so tests
// about deadlines and polling run in microseconds and deterministically. It is
// safe for concurrent use.
type FakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []fakeTimer
	seq    uint64
	// changed is closed (and replaced) whenever a timer is registered, so
	// BlockUntil can wait without polling.
	changed chan struct{}
}

type fakeTimer struct {
	at  time.Time
	seq uint64
	ch  chan time.Time
}

// NewFakeClock returns a FakeClock that reads start until advanced.
func NewFakeClock(start time.Time) *FakeClock {
	return &FakeClock{now: start, changed: make(chan struct{})}
}

// Now returns the fake current time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After returns a channel that receives the deadline once the clock has been
// advanced by at least d. A non-positive d fires at once. The channel is
// buffered, so a timer whose receiver went away never blocks Advance; such a
// timer still counts as a waiter until it fires.
func (c *FakeClock) After(d time.Duration) <-chan time.Time {
	ch, _ := c.NewTimer(d)
	return ch
}

// NewTimer is After with a stop function that releases the timer and
// reports whether it was still pending; a waiter that gave up stops its
// timer so Waiters and BlockUntil count only live waits.
func (c *FakeClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	ch := make(chan time.Time, 1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if d <= 0 {
		ch <- c.now
		return ch, func() bool { return false }
	}
	c.seq++
	seq := c.seq
	t := fakeTimer{at: c.now.Add(d), seq: c.seq, ch: ch}
	i := sort.Search(len(c.timers), func(i int) bool {
		o := c.timers[i]
		return o.at.After(t.at) || (o.at.Equal(t.at) && o.seq > t.seq)
	})
	c.timers = append(c.timers, fakeTimer{})
	copy(c.timers[i+1:], c.timers[i:])
	c.timers[i] = t
	close(c.changed)
	c.changed = make(chan struct{})
	return ch, func() bool { return c.stop(seq) }
}

func (c *FakeClock) stop(seq uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, t := range c.timers {
		if t.seq == seq {
			c.timers = append(c.timers[:i], c.timers[i+1:]...)
			return true
		}
	}
	return false
}

// AdvanceToNext moves the clock to the earliest pending deadline and fires
// the timers due then. It returns false, leaving the clock alone, when no
// timer is pending. Tests use it to jump straight to the next thing that can
// happen instead of guessing a step.
func (c *FakeClock) AdvanceToNext() bool {
	c.mu.Lock()
	if len(c.timers) == 0 {
		c.mu.Unlock()
		return false
	}
	d := c.timers[0].at.Sub(c.now)
	c.mu.Unlock()
	c.Advance(max(d, 0))
	return true
}

// Advance moves the clock forward by d and fires, in deadline order, every
// timer that falls due; while a timer fires, Now reads its deadline. A
// negative d is ignored: time never goes backwards.
func (c *FakeClock) Advance(d time.Duration) {
	if d < 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	target := c.now.Add(d)
	for len(c.timers) > 0 && !c.timers[0].at.After(target) {
		t := c.timers[0]
		c.timers = c.timers[1:]
		if t.at.After(c.now) {
			c.now = t.at
		}
		t.ch <- t.at
	}
	c.now = target
}

// Waiters returns how many timers are registered and not yet fired.
func (c *FakeClock) Waiters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// BlockUntil blocks until at least n timers are waiting, which tells a test
// that the goroutine under test reached its wait before the test advances
// time.
func (c *FakeClock) BlockUntil(n int) {
	_ = c.BlockUntilContext(context.Background(), n)
}

// BlockUntilDue blocks until a timer is pending whose deadline is at most d
// from now, or ctx is done. Where other timers wait too (a stream's
// keep-alive), it tells a test that the wait it is about to end has begun.
func (c *FakeClock) BlockUntilDue(ctx context.Context, d time.Duration) error {
	return c.blockUntil(ctx, func() bool { return len(c.timers) > 0 && !c.timers[0].at.After(c.now.Add(d)) })
}

// BlockUntilContext is BlockUntil that gives up with ctx's error when ctx is
// done, so a test cannot hang on a goroutine that already returned.
func (c *FakeClock) BlockUntilContext(ctx context.Context, n int) error {
	return c.blockUntil(ctx, func() bool { return len(c.timers) >= n })
}

// blockUntil waits until cond, called with c.mu held, holds.
func (c *FakeClock) blockUntil(ctx context.Context, cond func() bool) error {
	for {
		c.mu.Lock()
		if cond() {
			c.mu.Unlock()
			return nil
		}
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

var _ Clock = (*FakeClock)(nil)
