package behaviors_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/timeline"
)

func TestContentTypeUnary(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "content-type:call=1"))
	resp, body, err := r.raw("SendMessage", sendParams("hi"))
	require.NoError(t, err)
	assert.Equal(t, "text/plain; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.True(t, json.Valid(body), "the body is the honest JSON answer")
	assert.Contains(t, string(body), "TASK_STATE_COMPLETED")

	resp, _, err = r.raw("SendMessage", sendParams("hi"))
	require.NoError(t, err)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"), "call 2 is out of scope")
}

func TestContentTypeREST(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "content-type:type=application/a2a+json,binding=HTTP+JSON"))
	resp, body := r.restCall(http.MethodPost, "/message:send", sendParams("hi"))
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	assert.Equal(t, "application/a2a+json", resp.Header.Get("Content-Type"))
	// The JSON-RPC binding is out of scope.
	resp, _, err := r.raw("SendMessage", sendParams("hi"))
	require.NoError(t, err)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	// Errors too.
	resp, _ = r.restCall(http.MethodGet, "/tasks/nope", nil)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Equal(t, "application/a2a+json", resp.Header.Get("Content-Type"))
}

func TestContentTypeStream(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "content-type:stream=keep,call=1"), parse(t, "content-type:type=application/json,stream=type,call=2"),
		parse(t, "content-type:type=application/json,stream=json,call=3"))
	resp, body, err := r.raw("SendStreamingMessage", sendParams("hi"))
	require.NoError(t, err)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"), "stream=keep")
	assert.Equal(t, 4, strings.Count(string(body), "data: "))

	resp, body, err = r.raw("SendStreamingMessage", sendParams("hi"))
	require.NoError(t, err)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.Equal(t, 4, strings.Count(string(body), "data: "), "the same events under the wrong type")

	resp, body, err = r.raw("SendStreamingMessage", sendParams("hi"))
	require.NoError(t, err)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	require.True(t, json.Valid(body), "%q", body)
	assert.NotContains(t, string(body), "data:")
	o := observe(t, body, true)
	assert.Equal(t, "status:completed", o.String())
}

func TestContentTypeRejectsBadParams(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"content-type:type=", "content-type:stream=xml", "content-type:type=a b"} {
		_, err := behaviorsParse(spec)
		assert.Error(t, err, spec)
	}
}

// stream=json answers one JSON body however long the task takes: the
// keep-alive comments the stream writes while it waits for the last event
// are held back (they made the body invalid JSON whenever a step took
// longer than the keep-alive interval; seen with the rig's 20ms keep-alive
// on a loaded machine). On the fake clock each step is five keep-alive
// intervals long.
func TestContentTypeStreamJSONHoldsKeepAlives(t *testing.T) {
	t.Parallel()
	gap := 5 * time.Minute
	clk := timeline.NewFakeClock(time.Date(2026, 11, 12, 0, 0, 0, 0, time.UTC))
	r := newRig(t, rigOptions{timelines: spacedTimeline(gap), keepAlive: time.Minute, clock: clk},
		parse(t, "content-type:type=application/json,stream=json"))
	type answer struct {
		body []byte
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		_, body, err := r.raw("SendStreamingMessage", sendParams("hi"))
		got <- answer{body, err}
	}()
	for range 3 {
		blockUntil(t, clk, 2) // the next step and the stream's keep-alive
		clk.Advance(gap)
	}
	var a answer
	select {
	case a = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("no answer within 10s")
	}
	require.NoError(t, a.err)
	require.True(t, json.Valid(a.body), "%q", a.body)
	assert.Equal(t, "status:completed", observe(t, a.body, true).String())
}
