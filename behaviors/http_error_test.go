package behaviors_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

// raw sends a JSON-RPC call and returns the HTTP response with its body
// read (or the error that stopped the read).
func (r *rig) raw(name string, params any) (*http.Response, []byte, error) {
	r.t.Helper()
	resp, err := r.client.Do(r.rpcRequest(name, params))
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

func sendParams(text string) map[string]any {
	return map[string]any{"message": message(wire.V10, text, "s1", "")}
}

func TestHTTPError(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "http-error:status=429,retry-after=1500ms,op=send,call=1"))
	resp, body, err := r.raw("SendMessage", sendParams("hi"))
	require.NoError(t, err)
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "2", resp.Header.Get("Retry-After"), "rounded up to whole seconds")
	assert.Equal(t, "text/plain; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.Equal(t, "429 Too Many Requests\n", string(body))
	// The agent never saw it.
	rep := r.rpc("ListTasks", map[string]any{})
	require.Nil(t, rep.Error)
	assert.NotContains(t, string(rep.Result), `"id"`)

	// Call 2 is out of scope.
	resp, body, err = r.raw("SendMessage", sendParams("hi"))
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(body), "TASK_STATE_COMPLETED")
}

func TestHTTPErrorStreamAndBody(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "http-error:status=502,body=<html>bad gateway</html>,content-type=text/html"))
	resp, body, err := r.raw("SendStreamingMessage", sendParams("hi"))
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadGateway, resp.StatusCode)
	assert.Empty(t, resp.Header.Get("Retry-After"))
	assert.Equal(t, "text/html", resp.Header.Get("Content-Type"))
	assert.Equal(t, "<html>bad gateway</html>", string(body))
}

func TestHTTPErrorSeeded(t *testing.T) {
	t.Parallel()
	statuses := func() []int {
		r := newRig(t, rigOptions{seed: 99}, parse(t, "http-error:status=500|502|503|504"))
		var out []int
		for range 12 {
			resp, _, err := r.raw("SendMessage", sendParams("hi"))
			require.NoError(t, err)
			out = append(out, resp.StatusCode)
		}
		return out
	}
	a, b := statuses(), statuses()
	assert.Equal(t, a, b, "same seed, same statuses")
	distinct := map[int]bool{}
	for _, s := range a {
		distinct[s] = true
	}
	assert.Greater(t, len(distinct), 1, "%v", a)

	_, err := behaviorsParse("http-error:status=200")
	require.Error(t, err)
}
