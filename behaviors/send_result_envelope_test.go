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

// TestSendResultEnvelopeOtherDialects: where the answer is bare (the
// JSON-RPC result of v0.3's and v0.2's message/send, v0.1's tasks/send) the
// behavior wraps it as v1.0 does, keyed by what it is, with the object's
// kind kept only with kind=true; where it is wrapped (v0.3's HTTP+JSON
// answer, proto-shaped like v1.0's) it unwraps it. GetTask answers stay as
// they are.
func TestSendResultEnvelopeOtherDialects(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		d      wire.Dialect
		method string
		params func() map[string]any
		// kind is whether the dialect's objects carry kind at all.
		kind bool
		get  string
	}{
		{wire.V03, "message/send", func() map[string]any { return map[string]any{"message": message(wire.V03, "hi", "s1", "")} }, true, "tasks/get"},
		{wire.V02, "message/send", func() map[string]any { return map[string]any{"message": message(wire.V02, "hi", "s1", "")} }, true, "tasks/get"},
		{wire.V01, "tasks/send", func() map[string]any {
			return map[string]any{"id": "v01-task", "message": map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "text": "hi"}}}}
		}, false, "tasks/get"},
	} {
		for _, kind := range []bool{false, true} {
			spec := "send-result-envelope"
			if kind {
				spec += ":kind=true"
			}
			t.Run(string(c.d)+"/"+spec, func(t *testing.T) {
				t.Parallel()
				honest := newRig(t, rigOptions{dialect: c.d})
				rep := honest.rpc(c.method, c.params())
				require.Nil(t, rep.Error)
				var bare map[string]any
				require.NoError(t, json.Unmarshal(rep.Result, &bare))
				require.NotContains(t, bare, "task", "the honest answer is bare")
				assert.Equal(t, c.kind, bare["kind"] == "task", "the honest answer's kind")

				r := newRig(t, rigOptions{dialect: c.d}, parse(t, spec))
				rep = r.rpc(c.method, c.params())
				require.Nil(t, rep.Error)
				var res map[string]map[string]any
				require.NoError(t, json.Unmarshal(rep.Result, &res), "%s", rep.Result)
				require.Len(t, res, 1, "%s", rep.Result)
				task := res["task"]
				require.NotNil(t, task, "wrapped as a task: %s", rep.Result)
				assert.NotEmpty(t, task["id"])
				assert.Contains(t, task, "status")
				if kind {
					assert.Equal(t, "task", task["kind"], "kind=true: the object carries kind")
				} else {
					assert.NotContains(t, task, "kind", "the wrapped object is v1.0's, without kind")
				}
				for k := range bare {
					if k != "kind" {
						assert.Contains(t, task, k, "the object inside the wrapper is the honest one")
					}
				}

				rep = r.rpc(c.get, map[string]any{"id": task["id"]})
				require.Nil(t, rep.Error)
				var got map[string]any
				require.NoError(t, json.Unmarshal(rep.Result, &got))
				assert.Equal(t, task["id"], got["id"], "GetTask answers are untouched")
			})
		}
	}
}

// TestSendResultEnvelopeREST03: v0.3's HTTP+JSON answers a send with the
// proto's SendMessageResponse, {"task":…}, as v1.0 does: the behavior
// unwraps it there.
func TestSendResultEnvelopeREST03(t *testing.T) {
	t.Parallel()
	for _, kind := range []bool{false, true} {
		spec := "send-result-envelope"
		if kind {
			spec += ":kind=true"
		}
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, rigOptions{dialect: wire.V03}, parse(t, spec))
			body := `{"message":{"messageId":"m-rest03","role":"ROLE_USER","content":[{"text":"hi"}]}}`
			req, err := http.NewRequest(http.MethodPost, r.base+"/v0.3/v1/message:send", strings.NewReader(body))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("A2A-Version", "0.3")
			resp, err := r.client.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)
			var res map[string]any
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&res))
			assert.NotContains(t, res, "task", "no wrapper")
			assert.NotEmpty(t, res["id"])
			assert.Contains(t, res, "status")
			if kind {
				assert.Equal(t, "task", res["kind"])
			} else {
				assert.NotContains(t, res, "kind")
			}
		})
	}
}
