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
}

func TestLatencyOverHTTP(t *testing.T) {
	t.Parallel()
	const d = 300 * time.Millisecond
	r := newRig(t, rigOptions{}, parse(t, "latency:delay=300ms,phase=start,call=1"), parse(t, "latency:delay=300ms,phase=body,call=2"))
	timed := func() (head, body time.Duration) {
		start := time.Now()
		resp, err := r.client.Do(r.rpcRequest("SendMessage", map[string]any{"message": message(wire.V10, "hi", "s1", "")}))
		require.NoError(t, err)
		defer resp.Body.Close()
		head = time.Since(start)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Contains(t, string(b), "TASK_STATE_COMPLETED")
		return head, time.Since(start)
	}
	head, body := timed()
	assert.GreaterOrEqual(t, head, d, "phase=start holds the headers back")
	assert.GreaterOrEqual(t, body, d)

	head, body = timed()
	assert.Less(t, head, d, "phase=body sends the headers at once")
	assert.GreaterOrEqual(t, body, d, "and holds the body back")

	head, body = timed()
	assert.Less(t, body, d, "call 3 is out of scope")
	_ = head
}
