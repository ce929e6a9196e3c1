package behaviors_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

func TestSendResultEnvelope(t *testing.T) {
	t.Parallel()
	for _, kind := range []bool{false, true} {
		spec := "send-result-envelope"
		if kind {
			spec += ":kind=true"
		}
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, rigOptions{}, parse(t, spec))
			rep := r.rpc("SendMessage", sendParams("hi"))
			require.Nil(t, rep.Error)
			var res map[string]any
			require.NoError(t, json.Unmarshal(rep.Result, &res))
			assert.NotContains(t, res, "task", "no wrapper")
			assert.NotEmpty(t, res["id"])
			assert.Contains(t, res, "status")
			if kind {
				assert.Equal(t, "task", res["kind"])
			} else {
				assert.NotContains(t, res, "kind")
			}

			resp, body := r.restCall(http.MethodPost, "/message:send", sendParams("hi"))
			require.Equal(t, http.StatusOK, resp.StatusCode)
			res = nil
			require.NoError(t, json.Unmarshal(body, &res))
			assert.NotContains(t, res, "task")
			assert.NotEmpty(t, res["id"])

			// GetTask answers are untouched (a bare Task is their shape).
			rep = r.rpc("GetTask", map[string]any{"id": res["id"]})
			require.Nil(t, rep.Error)
			assert.Contains(t, string(rep.Result), `"id"`)
		})
	}
}

func TestSendResultEnvelopeOnlyV10(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{dialect: wire.V03}, parse(t, "send-result-envelope:kind=true"))
	rep := r.rpc("message/send", map[string]any{"message": message(wire.V03, "hi", "s1", "")})
	require.Nil(t, rep.Error)
	var res map[string]any
	require.NoError(t, json.Unmarshal(rep.Result, &res))
	assert.Equal(t, "task", res["kind"], "v0.3 answers are bare already and unchanged")
	assert.Equal(t, 1, strings.Count(string(rep.Result), `"kind":"task"`))
}
