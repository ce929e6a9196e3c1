package behaviors_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

// rpcErrorData sends a GetTask for an unknown task and returns the error's
// code and its raw data member (nil when absent).
func rpcErrorData(t *testing.T, r *rig, d wire.Dialect) (int, json.RawMessage) {
	t.Helper()
	resp, body, err := r.raw(method(d, wire.OpGetTask), map[string]any{"id": "no-such-task"})
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var env struct {
		Error *struct {
			Code int             `json:"code"`
			Data json.RawMessage `json:"data"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(body, &env), "%s", body)
	require.NotNil(t, env.Error, "%s", body)
	return env.Error.Code, env.Error.Data
}

func TestErrorDataShape(t *testing.T) {
	t.Parallel()
	for _, d := range []wire.Dialect{wire.V10, wire.V03} {
		honest := newRig(t, rigOptions{dialect: d})
		code, data := rpcErrorData(t, honest, d)
		for shape, want := range map[string]byte{"object": '{', "list": '[', "string": '"'} {
			t.Run(string(d)+"/"+shape, func(t *testing.T) {
				t.Parallel()
				r := newRig(t, rigOptions{dialect: d}, parse(t, "error-data-shape:shape="+shape))
				c, got := rpcErrorData(t, r, d)
				assert.Equal(t, code, c, "the code is kept")
				require.NotEmpty(t, got)
				assert.Equal(t, want, got[0], "%s", got)
				if shape == "list" && len(data) > 0 && data[0] == '{' {
					assert.JSONEq(t, "["+string(data)+"]", string(got), "the honest object, wrapped")
				}
				if shape == "object" && len(data) > 0 && data[0] == '[' {
					var list []json.RawMessage
					require.NoError(t, json.Unmarshal(data, &list))
					assert.JSONEq(t, string(list[0]), string(got), "the honest list's first element")
				}
			})
		}
		t.Run(string(d)+"/absent", func(t *testing.T) {
			t.Parallel()
			r := newRig(t, rigOptions{dialect: d}, parse(t, "error-data-shape:shape=absent"))
			c, got := rpcErrorData(t, r, d)
			assert.Equal(t, code, c)
			assert.Empty(t, got)
		})
	}
}

func TestErrorDataShapeLeavesResultsAndREST(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "error-data-shape:shape=string"))
	rep := r.rpc("SendMessage", sendParams("hi"))
	require.Nil(t, rep.Error)
	assert.Contains(t, string(rep.Result), "TASK_STATE_COMPLETED")
	resp, body := r.restCall(http.MethodGet, "/tasks/nope", nil)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Contains(t, string(body), `"details"`, "HTTP+JSON errors keep their google.rpc.Status details: %s", body)
}

func TestErrorDataShapeRejectsBadShape(t *testing.T) {
	t.Parallel()
	_, err := behaviorsParse("error-data-shape:shape=map")
	assert.Error(t, err)
}
