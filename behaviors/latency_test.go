package behaviors_test

import (
	"io"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// drawDelays applies spec to n exchanges seeded like the server does and
// returns the delays it registered.
func drawDelays(t *testing.T, spec string, seed uint64, n int) []time.Duration {
	t.Helper()
	b := parse(t, spec)
	out := make([]time.Duration, n)
	for i := range out {
		x := &behaviors.Exchange{Op: wire.OpSend, Call: i + 1, Rand: rand.New(rand.NewPCG(seed, uint64(i+1)))}
		b.Apply(x)
		out[i] = x.Hooks().Delay
	}
	return out
}

func TestLatencyDistributions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec     string
		lo, hi   time.Duration
		constant bool
	}{
		{"latency:dist=fixed,delay=150ms", 150 * time.Millisecond, 150 * time.Millisecond, true},
		{"latency:dist=uniform,min=10ms,max=20ms", 10 * time.Millisecond, 20 * time.Millisecond, false},
		{"latency:dist=normal,delay=100ms,stddev=10ms", 40 * time.Millisecond, 160 * time.Millisecond, false},
		{"latency:dist=lognormal,delay=100ms,sigma=0.3", 10 * time.Millisecond, time.Second, false},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			t.Parallel()
			a := drawDelays(t, tc.spec, 42, 50)
			assert.Equal(t, a, drawDelays(t, tc.spec, 42, 50), "same seed, same delays")
			distinct := map[time.Duration]bool{}
			for _, d := range a {
				assert.GreaterOrEqual(t, d, tc.lo)
				assert.LessOrEqual(t, d, tc.hi)
				distinct[d] = true
			}
			assert.Equal(t, tc.constant, len(distinct) == 1, "%v", a)
		})
	}
	for _, bad := range []string{"latency:dist=zipf", "latency:phase=middle", "latency:dist=lognormal,delay=0s", "latency:dist=uniform,min=3s,max=1s"} {
		_, err := behaviorsParse(bad)
		assert.Error(t, err, bad)
	}
	// A configured delay past the bound is refused, not cut to it; a draw
	// from a tail is cut.
	for _, bad := range []string{"latency:delay=11m", "latency:dist=uniform,min=1s,max=1h", "slow-stream:delay=24h", "latency:dist=lognormal,delay=20m"} {
		_, err := behaviorsParse(bad)
		assert.ErrorContains(t, err, "is longer than the longest delay a2amock waits, 10m0s", bad)
	}
	for _, ok := range []string{"latency:delay=10m", "latency:dist=uniform,min=1s,max=10m"} {
		_, err := behaviorsParse(ok)
		assert.NoError(t, err, ok)
	}
	for _, d := range drawDelays(t, "latency:dist=lognormal,delay=9m,sigma=3", 42, 50) {
		assert.LessOrEqual(t, d, 10*time.Minute)
	}
}

func TestLatencyOverHTTP(t *testing.T) {
	t.Parallel()
	// On the fake clock the honest lifecycle takes no time, so the only
	// timer a call waits on is the latency's: what arrives before the clock
	// moves by the delay, and what only after, is what the phase holds
	// back (wall-time bounds failed on a loaded machine).
	const d = 5 * time.Minute
	clk := timeline.NewFakeClock(time.Date(2026, 11, 12, 0, 0, 0, 0, time.UTC))
	r := newRig(t, rigOptions{clock: clk}, parse(t, "latency:delay=5m,phase=start,call=1"), parse(t, "latency:delay=5m,phase=body,call=2"))
	type answer struct {
		resp *http.Response
		err  error
	}
	// call starts a send; the first channel yields the response once its
	// headers arrive, the second its body once read.
	call := func() (<-chan answer, <-chan string) {
		head, body := make(chan answer, 1), make(chan string, 1)
		req := r.rpcRequest("SendMessage", map[string]any{"message": message(wire.V10, "hi", "s1", "")})
		go func() {
			resp, err := r.client.Do(req)
			head <- answer{resp, err}
			if err != nil {
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			body <- string(b)
		}()
		return head, body
	}
	await := func(what string, ch <-chan answer) *http.Response {
		t.Helper()
		select {
		case a := <-ch:
			require.NoError(t, a.err, what)
			require.Equal(t, http.StatusOK, a.resp.StatusCode, what)
			return a.resp
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no response within 10s", what)
			return nil
		}
	}
	awaitBody := func(what string, ch <-chan string) string {
		t.Helper()
		select {
		case b := <-ch:
			return b
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no body within 10s", what)
			return ""
		}
	}

	head, body := call()
	blockUntilDue(t, clk, d)
	select {
	case <-head:
		t.Fatal("phase=start: the headers came before the clock moved")
	default:
	}
	clk.Advance(d)
	await("phase=start", head)
	assert.Contains(t, awaitBody("phase=start", body), "TASK_STATE_COMPLETED")
	assert.Equal(t, "latency", firstActed(lastRequestEntry(t, r)))

	head, body = call()
	await("phase=body sends the headers at once", head)
	blockUntilDue(t, clk, d)
	select {
	case b := <-body:
		t.Fatalf("phase=body: the body came before the clock moved: %s", b)
	default:
	}
	clk.Advance(d)
	assert.Contains(t, awaitBody("phase=body holds the body back", body), "TASK_STATE_COMPLETED")
	assert.Equal(t, "latency", firstActed(lastRequestEntry(t, r)))

	head, body = call()
	await("call 3", head)
	assert.Contains(t, awaitBody("call 3 is out of scope: it completes without the clock moving", body), "TASK_STATE_COMPLETED")
	assert.Empty(t, lastRequestEntry(t, r).Behaviors, "call 3 is out of scope")
	assert.Zero(t, clk.Waiters())
}
