package behaviors_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/wire"
)

func TestSlowStream(t *testing.T) {
	t.Parallel()
	// The spacing itself is measured on the fake clock
	// (TestSlowStreamOnFakeClock); here, which requests it acts on, as the
	// journal tells (wall-time gaps and bounds failed on a loaded machine).
	t.Run("acts within its scope only", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, rigOptions{}, parse(t, "slow-stream:dist=fixed,delay=1ms,skill=s1"))
		lastRequest := func() server.Entry {
			reqs := r.srv.Journal().Filter(0, "", "", server.EntryRequest)
			require.NotEmpty(t, reqs)
			return reqs[len(reqs)-1]
		}
		obs, err := r.streamMessage(wire.V10, "hi", "s1")
		require.NoError(t, err)
		assert.Len(t, obs, 4)
		in := lastRequest()
		require.Len(t, in.Behaviors, 1, "skill s1 is in scope")
		assert.Contains(t, in.Behaviors[0], "slow-stream")

		obs, err = r.streamMessage(wire.V10, "hi", "s2")
		require.NoError(t, err)
		assert.Len(t, obs, 4)
		out := lastRequest()
		assert.Empty(t, out.Behaviors, "skill s2 is out of scope")
		require.Len(t, out.Skipped, 1)
		assert.Equal(t, "skill", out.Skipped[0].Key)
	})
	t.Run("ends promptly when the client leaves", func(t *testing.T) {
		t.Parallel()
		// The client leaves while the stream sleeps on the fake clock
		// before its first event (a 150 ms deadline on the wall clock could
		// expire before the headers came on a loaded machine).
		mock, clk := clockMock(t, "slow-stream:delay=10m")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cl, req := rpcTo(t, ctx, mock.AgentURL("a")+"/", "SendStreamingMessage", map[string]any{"message": message(wire.V10, "hi", "s1", "")})
		resp, err := cl.Do(req)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		blockUntilDue(t, clk, 10*time.Minute) // the stream sleeps before its first event
		cancel()
		buf := make([]byte, 64)
		_, err = resp.Body.Read(buf)
		require.Error(t, err, "no event before the ten minutes passed")
		require.NoError(t, resp.Body.Close())
		// The hook's sleep ends with the request context: its timer is
		// released without the clock moving (goleak checks the rest).
		require.Eventually(t, func() bool { return clk.Waiters() == 0 }, 10*time.Second, time.Millisecond,
			"the sleep still holds its timer after the client left")
	})
	t.Run("ends promptly when the server closes", func(t *testing.T) {
		t.Parallel()
		mock, clk := clockMock(t, "slow-stream:dist=uniform,min=5m,max=6m")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		cl, req := rpcTo(t, ctx, mock.AgentURL("a")+"/", "SendStreamingMessage", map[string]any{"message": message(wire.V10, "hi", "s1", "")})
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
		case <-time.After(10 * time.Second):
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
