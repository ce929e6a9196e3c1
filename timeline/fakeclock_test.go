package timeline

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var epoch = time.Date(2026, 11, 12, 9, 0, 0, 0, time.UTC)

func TestFakeClockNowAndAdvance(t *testing.T) {
	t.Parallel()
	c := NewFakeClock(epoch)
	assert.Equal(t, epoch, c.Now())
	c.Advance(3 * time.Second)
	assert.Equal(t, epoch.Add(3*time.Second), c.Now())
	c.Advance(-time.Hour)
	assert.Equal(t, epoch.Add(3*time.Second), c.Now(), "time never goes backwards")
}

func TestFakeClockFiresDueTimersInOrder(t *testing.T) {
	t.Parallel()
	c := NewFakeClock(epoch)
	late := c.After(5 * time.Second)
	early := c.After(2 * time.Second)
	never := c.After(time.Minute)
	require.Equal(t, 3, c.Waiters())

	c.Advance(time.Second)
	select {
	case <-early:
		t.Fatal("timer fired before its deadline")
	default:
	}

	c.Advance(4 * time.Second)
	assert.Equal(t, epoch.Add(2*time.Second), <-early)
	assert.Equal(t, epoch.Add(5*time.Second), <-late)
	assert.Equal(t, 1, c.Waiters())
	select {
	case <-never:
		t.Fatal("far timer fired")
	default:
	}
}

func TestFakeClockNonPositiveAfterFiresAtOnce(t *testing.T) {
	t.Parallel()
	c := NewFakeClock(epoch)
	assert.Equal(t, epoch, <-c.After(0))
	assert.Equal(t, epoch, <-c.After(-time.Second))
	assert.Zero(t, c.Waiters())
}

func TestFakeClockBlockUntil(t *testing.T) {
	t.Parallel()
	c := NewFakeClock(epoch)
	got := make(chan time.Time)
	go func() { got <- <-c.After(time.Second) }()

	c.BlockUntil(1)
	c.Advance(time.Second)
	assert.Equal(t, epoch.Add(time.Second), <-got)
}

func TestFakeClockBlockUntilContextGivesUp(t *testing.T) {
	t.Parallel()
	c := NewFakeClock(epoch)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, c.BlockUntilContext(ctx, 1), context.Canceled)
}

func TestFakeClockConcurrentUse(t *testing.T) {
	t.Parallel()
	c := NewFakeClock(epoch)
	const n = 50
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { <-c.After(time.Millisecond) })
	}
	c.BlockUntil(n)
	c.Advance(time.Millisecond)
	wg.Wait()
	assert.Zero(t, c.Waiters())
}

func TestFakeClockStopReleasesTimer(t *testing.T) {
	t.Parallel()
	c := NewFakeClock(epoch)
	ch, stop := c.NewTimer(time.Second)
	require.Equal(t, 1, c.Waiters())
	assert.True(t, stop())
	assert.False(t, stop(), "second stop finds nothing")
	assert.Zero(t, c.Waiters())
	c.Advance(time.Minute)
	select {
	case <-ch:
		t.Fatal("stopped timer fired")
	default:
	}
}

func TestFakeClockAdvanceToNext(t *testing.T) {
	t.Parallel()
	c := NewFakeClock(epoch)
	assert.False(t, c.AdvanceToNext())
	assert.Equal(t, epoch, c.Now())
	a := c.After(7 * time.Second)
	b := c.After(9 * time.Second)
	require.True(t, c.AdvanceToNext())
	assert.Equal(t, epoch.Add(7*time.Second), <-a)
	assert.Equal(t, epoch.Add(7*time.Second), c.Now())
	select {
	case <-b:
		t.Fatal("later timer fired")
	default:
	}
}

func TestSleepReleasesItsTimer(t *testing.T) {
	t.Parallel()
	c := NewFakeClock(epoch)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan bool)
	go func() { done <- Sleep(ctx, c, time.Hour) }()
	c.BlockUntil(1)
	cancel()
	assert.False(t, <-done, "a cancelled sleep reports false")
	assert.Zero(t, c.Waiters(), "an abandoned sleep leaves no timer behind")
	assert.False(t, c.AdvanceToNext(), "nothing left to jump to")

	go func() { done <- Sleep(context.Background(), c, time.Second) }()
	c.BlockUntil(1)
	c.Advance(time.Second)
	assert.True(t, <-done)
	assert.Zero(t, c.Waiters())

	assert.True(t, Sleep(context.Background(), c, 0))
	assert.False(t, Sleep(ctx, c, 0), "a zero sleep on a done context reports false")
}

func TestRealClockTimerStops(t *testing.T) {
	t.Parallel()
	ch, stop := RealClock{}.NewTimer(time.Hour)
	assert.True(t, stop())
	assert.False(t, stop())
	select {
	case <-ch:
		t.Fatal("stopped timer fired")
	default:
	}
	assert.True(t, Sleep(context.Background(), RealClock{}, time.Microsecond))
}

func TestFakeClockBlockUntilDue(t *testing.T) {
	t.Parallel()
	c := NewFakeClock(epoch)
	c.After(time.Hour) // a far timer, like a stream's keep-alive
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, c.BlockUntilDue(ctx, time.Minute), context.DeadlineExceeded, "only a far timer waits")
	go func() { <-c.After(time.Minute) }()
	require.NoError(t, c.BlockUntilDue(context.Background(), time.Minute))
	c.Advance(time.Minute)
	assert.Equal(t, 1, c.Waiters())
}
