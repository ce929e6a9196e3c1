package behaviors_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMalformedJSON(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"cut", "trailing-comma"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, rigOptions{}, parse(t, "malformed-json:call=1,mode="+mode))
			resp, body, err := r.raw("SendMessage", sendParams("hi"))
			require.NoError(t, err, "every announced byte arrives")
			assert.Equal(t, strconv.Itoa(len(body)), resp.Header.Get("Content-Length"))
			assert.False(t, json.Valid(body), "%s", body)
			assert.Contains(t, string(body), "TASK_STATE_COMPLETED", "the answer is there, only broken")

			_, body, err = r.raw("SendMessage", sendParams("hi"))
			require.NoError(t, err)
			assert.True(t, json.Valid(body), "call 2 is out of scope")
		})
	}
}

func TestMalformedJSONStreamEvent(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "malformed-json:event=2"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := r.stream(ctx, "SendStreamingMessage", sendParams("hi"))
	require.NoError(t, err)
	defer s.Close()
	var valid []bool
	for ev, err := range s.Events() {
		require.NoError(t, err)
		valid = append(valid, json.Valid(ev.Data))
	}
	assert.Equal(t, []bool{true, false, true, true}, valid)
}
