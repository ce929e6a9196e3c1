package behaviors_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// everyObject reports the paths of the objects of v that lack member
// field, outside the opaque members (metadata, data, ...).
func lacking(v any, field, path string) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v[field]; !ok {
			out = append(out, path)
		}
		for k, e := range v {
			if k != "metadata" && k != "data" && k != "params" {
				out = append(out, lacking(e, field, path+"."+k)...)
			}
		}
	case []any:
		for _, e := range v {
			out = append(out, lacking(e, field, path+"[]")...)
		}
	}
	return out
}

// Every object of a unary answer and of each stream event gets the member,
// over JSON-RPC (inside the result, not the envelope) and HTTP+JSON; the
// application's metadata is left as it was.
func TestUnknownFields(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "unknown-fields:field=x-later"))
	params := sendParams("hi")
	params["message"].(map[string]any)["metadata"] = map[string]any{"k": "v"}
	raw, err := json.Marshal(params)
	require.NoError(t, err)

	rep := r.rpc("SendMessage", params)
	require.Nil(t, rep.Error)
	var res map[string]any
	require.NoError(t, json.Unmarshal(rep.Result, &res))
	assert.Empty(t, lacking(res, "x-later", "result"), "%s", rep.Result)
	task := res["task"].(map[string]any)
	assert.Equal(t, "a field of a later version", task["x-later"])
	assert.Equal(t, map[string]any{"k": "v"}, task["history"].([]any)[0].(map[string]any)["metadata"], "metadata is the application's")
	assert.Equal(t, "TASK_STATE_COMPLETED", task["status"].(map[string]any)["state"], "the answer means what it meant")

	resp, body := r.restCall(http.MethodPost, "/message:send", json.RawMessage(raw))
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	var rest map[string]any
	require.NoError(t, json.Unmarshal(body, &rest))
	assert.Empty(t, lacking(rest, "x-later", "body"), "%s", body)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := r.stream(ctx, "SendStreamingMessage", sendParams("hi"))
	require.NoError(t, err)
	defer s.Close()
	n := 0
	for ev, err := range s.Events() {
		require.NoError(t, err)
		var env map[string]any
		require.NoError(t, json.Unmarshal(ev.Data, &env), "%s", ev.Data)
		assert.NotContains(t, env, "x-later", "the JSON-RPC envelope is not the agent's")
		assert.Empty(t, lacking(env["result"], "x-later", "result"), "%s", ev.Data)
		n++
	}
	assert.Equal(t, 4, n, "every event arrives")
}

// Card fetches are left alone unless the scope names them; then the card
// gets the member too, its security schemes left as they were.
func TestUnknownFieldsCard(t *testing.T) {
	t.Parallel()
	_, body := newRig(t, rigOptions{}, parse(t, "unknown-fields")).fetch("/.well-known/agent-card.json")
	assert.NotContains(t, string(body), "futureField")

	status, body := newRig(t, rigOptions{}, parse(t, "unknown-fields:op=agent-card")).fetch("/.well-known/agent-card.json")
	require.Equal(t, http.StatusOK, status)
	var card map[string]any
	require.NoError(t, json.Unmarshal(body, &card))
	assert.Equal(t, "a field of a later version", card["futureField"])
	assert.Empty(t, lacking(card, "futureField", "card"), "%s", body)
}

// A field that is not named is refused.
func TestUnknownFieldsNeedsAField(t *testing.T) {
	t.Parallel()
	_, err := parseErr("unknown-fields:field=")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "field must name a member")
}
