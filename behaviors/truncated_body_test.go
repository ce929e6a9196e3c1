package behaviors_test

import (
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTruncatedBody(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "truncated-body:call=1"), parse(t, "truncated-body:bytes=7,call=2"))
	resp, body, err := r.raw("SendMessage", sendParams("hi"))
	require.NotNil(t, resp, "the head arrives: %v", err)
	assert.True(t, errors.Is(err, io.ErrUnexpectedEOF), "got %v", err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	require.Positive(t, resp.ContentLength)
	assert.Equal(t, int(resp.ContentLength)/2, len(body), "half of the announced body")

	resp, body, err = r.raw("SendMessage", sendParams("hi"))
	require.NotNil(t, resp)
	assert.True(t, errors.Is(err, io.ErrUnexpectedEOF))
	assert.Equal(t, `{"jsonr`, string(body))

	resp, body, err = r.raw("SendMessage", sendParams("hi"))
	require.NoError(t, err, "call 3 is out of scope")
	assert.Equal(t, int(resp.ContentLength), len(body))
}

func TestTruncatedBodyStream(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "truncated-body"))
	obs, err := r.streamMessage("1.0", "hi", "s1")
	// The cut falls inside an HTTP chunk, so the chunked decoder reports
	// it before the SSE reader could.
	require.ErrorIs(t, err, io.ErrUnexpectedEOF, "half of the first event, then EOF")
	assert.Empty(t, obs)
}
