package behaviors_test

import (
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/wire"
)

func TestStreamEOFMidFrame(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "stream-eof-mid-frame:after=2,call=1"))
	obs, err := r.streamMessage(wire.V10, "hi", "s1")
	var te *sse.TruncatedError
	require.ErrorAs(t, err, &te, "the client must see a truncated stream")
	assert.True(t, errors.Is(err, io.ErrUnexpectedEOF))
	assert.Equal(t, "task:submitted status:working", kinds(obs), "two whole events, then half of the third")
	assert.Contains(t, string(te.Tail), "data: ")
	assert.Positive(t, te.Pending)

	// The second call is out of scope and complete.
	obs, err = r.streamMessage(wire.V10, "hi", "s1")
	require.NoError(t, err)
	assert.Equal(t, "completed", obs[len(obs)-1].State)
}

func TestStreamEOFMidFrameRejectsNegative(t *testing.T) {
	t.Parallel()
	_, err := behaviorsParse("stream-eof-mid-frame:after=-1")
	require.Error(t, err)
}
