package behaviors_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/a2a"
	"github.com/a2amock/a2amock/sse"
)

func TestSlowStream(t *testing.T) {
	t.Parallel()
	t.Run("events are spaced", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, rigOptions{}, parse(t, "slow-stream:dist=fixed,delay=60ms,skill=s1"))
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s, err := r.stream(ctx, "SendStreamingMessage", map[string]any{"message": message(a2a.V10, "hi", "s1", "")})
		require.NoError(t, err)
		defer s.Close()
		var at []time.Time
		for ev, err := range s.Events() {
			require.NoError(t, err)
			_ = ev
			at = append(at, time.Now())
		}
		require.Len(t, at, 4)
		for i := 1; i < len(at); i++ {
			assert.GreaterOrEqual(t, at[i].Sub(at[i-1]), 50*time.Millisecond, "gap %d", i)
		}

		start := time.Now()
		obs, err := r.streamMessage(a2a.V10, "hi", "s2")
		require.NoError(t, err)
		assert.Len(t, obs, 4)
		assert.Less(t, time.Since(start), 200*time.Millisecond, "skill s2 is out of scope")
	})
	t.Run("ends promptly when the client leaves", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, rigOptions{}, parse(t, "slow-stream:delay=1h"))
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
		defer cancel()
		req := r.rpcRequest("SendStreamingMessage", map[string]any{"message": message(a2a.V10, "hi", "s1", "")})
		resp, err := r.client.Do(req.WithContext(ctx))
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		buf := make([]byte, 64)
		_, err = resp.Body.Read(buf)
		require.Error(t, err, "no event within the hour")
		require.NoError(t, resp.Body.Close())
		// The cleanup's server Close must return quickly: the hook's sleep
		// ends with the request context (goleak checks the rest).
	})
	t.Run("ends promptly when the server closes", func(t *testing.T) {
		t.Parallel()
		mock, clk := clockMock(t, "slow-stream:dist=uniform,min=5m,max=6m")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		cl, req := rpcTo(t, ctx, mock.AgentURL("a")+"/", "SendStreamingMessage", map[string]any{"message": message(a2a.V10, "hi", "s1", "")})
		s, err := sse.Do(ctx, cl, req)
		require.NoError(t, err)
		defer s.Close()
		done := make(chan error, 1)
		go func() {
			_, err := collect(t, s)
			done <- err
		}()
		blockUntilDue(t, clk, 6*time.Minute) // the stream sleeps before its first event
		closed := make(chan struct{})
		go func() { mock.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(3 * time.Second):
			t.Fatal("server Close blocked on a sleeping stream")
		}
		<-done
		assert.Zero(t, clk.Waiters(), "the sleep released its timer")
	})
	t.Run("bad dist", func(t *testing.T) {
		t.Parallel()
		_, err := behaviorsParse("slow-stream:dist=pareto")
		require.Error(t, err)
		_, err = behaviorsParse("slow-stream:dist=uniform,min=2s,max=1s")
		require.Error(t, err)
	})
}
