package behaviors_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// restOpen makes an HTTP+JSON request and returns its status, Allow header
// and Content-Type without reading a (possibly endless) body.
func (r *rig) restOpen(method, path string) (int, string, string) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, r.base+"/rest"+path, nil)
	require.NoError(r.t, err)
	req.Header.Set("A2A-Version", "1.0")
	resp, err := r.client.Do(req)
	require.NoError(r.t, err)
	_ = resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Allow"), resp.Header.Get("Content-Type")
}

// workingTimeline keeps s1's tasks working until canceled.
var workingTimeline = map[string]timeline.Timeline{"s1": {
	{Kind: timeline.StepState, State: wire.StateSubmitted},
	{Kind: timeline.StepState, State: wire.StateWorking},
	{Kind: timeline.StepStop},
}}

func TestSubscribeMethod(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		serve                       string
		colonGET, colonPOST, legacy int
		allow                       string
	}{
		{"", 200, 200, 404, ""},
		{"get", 200, 405, 404, "GET"},
		{"post", 405, 200, 404, "POST"},
		{"legacy", 404, 404, 200, ""},
	} {
		t.Run("serve="+tc.serve, func(t *testing.T) {
			t.Parallel()
			var r *rig
			if tc.serve == "" {
				r = newRig(t, rigOptions{timelines: workingTimeline})
			} else {
				r = newRig(t, rigOptions{timelines: workingTimeline}, parse(t, "subscribe-method:serve="+tc.serve))
			}
			id := r.send(wire.V10, "run", "s1", true)
			st, allow, ct := r.restOpen(http.MethodGet, "/tasks/"+id+":subscribe")
			assert.Equal(t, tc.colonGET, st, "GET :subscribe")
			if st == http.StatusMethodNotAllowed {
				assert.Equal(t, tc.allow, allow)
			}
			if st == http.StatusOK {
				assert.Equal(t, "text/event-stream", ct)
			}
			st, allow, _ = r.restOpen(http.MethodPost, "/tasks/"+id+":subscribe")
			assert.Equal(t, tc.colonPOST, st, "POST :subscribe")
			if st == http.StatusMethodNotAllowed {
				assert.Equal(t, tc.allow, allow)
			}
			for _, m := range []string{http.MethodGet, http.MethodPost} {
				st, _, _ = r.restOpen(m, "/tasks/"+id+"/subscribe")
				assert.Equal(t, tc.legacy, st, "%s /subscribe", m)
			}
			// JSON-RPC SubscribeToTask is never affected.
			s, err := r.stream(context.Background(), "SubscribeToTask", map[string]any{"id": id})
			require.NoError(t, err)
			s.Close()
		})
	}
	_, err := behaviorsParse("subscribe-method:serve=put")
	assert.Error(t, err)
}
