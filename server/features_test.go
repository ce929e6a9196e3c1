package server_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/internal/schemacheck"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// listPage is a v1.0 ListTasksResponse.
type listPage struct {
	Tasks         []json.RawMessage `json:"tasks"`
	NextPageToken string            `json:"nextPageToken"`
	PageSize      int               `json:"pageSize"`
	TotalSize     int               `json:"totalSize"`
}

// lister runs ListTasks over JSON-RPC or HTTP+JSON.
type lister func(t *testing.T, q map[string]any) listPage

func listOver(h *harness, rest bool) lister {
	return func(t *testing.T, q map[string]any) listPage {
		t.Helper()
		var body []byte
		if rest {
			v := url.Values{}
			for k, x := range q {
				b, _ := json.Marshal(x)
				s := string(b)
				if str, ok := x.(string); ok {
					s = str
				}
				v.Set(k, s)
			}
			status, hdr, b := h.do(http.MethodGet, "/rest/tasks?"+v.Encode(), nil, v1)
			require.Equal(t, http.StatusOK, status, "%s", b)
			require.Contains(t, hdr.Get("Content-Type"), "json")
			body = b
		} else {
			r, raw := h.rpc("/", "ListTasks", q, v1)
			require.Nil(t, r.Error, "%s", raw)
			body = r.Result
		}
		schemacheck.Require(t, wire.V10, "ListTasksResponse", body)
		var p listPage
		require.NoError(t, json.Unmarshal(body, &p))
		return p
	}
}

func TestListTasks(t *testing.T) {
	t.Parallel()
	for _, rest := range []bool{false, true} {
		name := "JSON-RPC"
		if rest {
			name = "HTTP+JSON"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := start(t, server.Config{Seed: 11, StepDelay: -1, Agents: agentsFor(dialectCases[0], false)})
			cl := newClient(t, h, dialectCases[0])
			list := listOver(h, rest)

			empty := list(t, map[string]any{})
			assert.Zero(t, empty.TotalSize)
			assert.Empty(t, empty.Tasks)

			var created []wireTask
			first := cl.mustSend(sendOpts{})
			created = append(created, first)
			created = append(created, cl.mustSend(sendOpts{contextID: first.ContextID}))
			created = append(created, cl.mustSend(sendOpts{skill: "ask"}))
			created = append(created, cl.mustSend(sendOpts{}))
			created = append(created, cl.mustSend(sendOpts{}))

			// Pages of 2, newest first, every task exactly once.
			var ids []string
			token := ""
			for pages := 0; ; pages++ {
				require.Less(t, pages, 5, "paging does not end")
				q := map[string]any{"pageSize": 2}
				if token != "" {
					q["pageToken"] = token
				}
				p := list(t, q)
				assert.Equal(t, 5, p.TotalSize)
				assert.Equal(t, 2, p.PageSize)
				assert.LessOrEqual(t, len(p.Tasks), 2)
				for _, raw := range p.Tasks {
					tk := parseTask(t, wire.V10, raw)
					ids = append(ids, tk.ID)
					assert.Zero(t, tk.Artifacts, "artifacts only when asked for")
				}
				if p.NextPageToken == "" {
					break
				}
				token = p.NextPageToken
			}
			var want []string
			for i := len(created) - 1; i >= 0; i-- {
				want = append(want, created[i].ID)
			}
			assert.Equal(t, want, ids, "newest first, each task once")

			withArt := list(t, map[string]any{"includeArtifacts": true, "pageSize": 100})
			require.Len(t, withArt.Tasks, 5)
			arts := 0
			for _, raw := range withArt.Tasks {
				arts += parseTask(t, wire.V10, raw).Artifacts
			}
			assert.Equal(t, 4, arts, "every completed task has its artifact")

			byState := list(t, map[string]any{"status": "TASK_STATE_INPUT_REQUIRED"})
			require.Len(t, byState.Tasks, 1)
			assert.Equal(t, created[2].ID, parseTask(t, wire.V10, byState.Tasks[0]).ID)
			assert.Equal(t, 1, byState.TotalSize)

			byCtx := list(t, map[string]any{"contextId": first.ContextID})
			require.Len(t, byCtx.Tasks, 2)
			for _, raw := range byCtx.Tasks {
				assert.Equal(t, first.ContextID, parseTask(t, wire.V10, raw).ContextID)
			}

			noHistory := list(t, map[string]any{"historyLength": 0})
			for _, raw := range noHistory.Tasks {
				assert.Zero(t, parseTask(t, wire.V10, raw).History)
			}
		})
	}
}

// Tasks whose status times are equal (a frozen clock) still list newest
// first.
func TestListTasksNewestFirstOnEqualTimes(t *testing.T) {
	t.Parallel()
	clock := timeline.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	h := start(t, server.Config{Seed: 12, StepDelay: -1, Clock: clock, Agents: agentsFor(dialectCases[0], false)})
	cl := newClient(t, h, dialectCases[0])
	var want []string
	for range 3 {
		want = slices.Insert(want, 0, cl.mustSend(sendOpts{}).ID)
	}
	p := listOver(h, false)(t, map[string]any{})
	var got []string
	for _, raw := range p.Tasks {
		got = append(got, parseTask(t, wire.V10, raw).ID)
	}
	assert.Equal(t, want, got)
}

// A page starts after the last task of the one before, so tasks created
// between two fetches neither repeat a task nor push one off the pages.
func TestListTasksPagesSurviveNewTasks(t *testing.T) {
	t.Parallel()
	for _, rest := range []bool{false, true} {
		h := start(t, server.Config{Seed: 13, StepDelay: -1, Agents: agentsFor(dialectCases[0], false)})
		cl := newClient(t, h, dialectCases[0])
		var older []string
		for range 5 {
			older = slices.Insert(older, 0, cl.mustSend(sendOpts{}).ID)
		}
		list := listOver(h, rest)
		ids := func(p listPage) []string {
			var out []string
			for _, raw := range p.Tasks {
				out = append(out, parseTask(t, wire.V10, raw).ID)
			}
			return out
		}
		p1 := list(t, map[string]any{"pageSize": 2})
		require.NotEmpty(t, p1.NextPageToken)
		for range 3 {
			cl.mustSend(sendOpts{}) // newer than everything listed so far
		}
		p2 := list(t, map[string]any{"pageSize": 2, "pageToken": p1.NextPageToken})
		p3 := list(t, map[string]any{"pageSize": 2, "pageToken": p2.NextPageToken})
		assert.Empty(t, p3.NextPageToken, "rest=%v: the last page", rest)
		assert.Equal(t, older, append(append(ids(p1), ids(p2)...), ids(p3)...), "rest=%v", rest)
		assert.Equal(t, 8, p3.TotalSize)
	}
}

func TestListTasksBadParams(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 13, StepDelay: -1})
	for _, q := range []map[string]any{
		{"pageSize": 1000}, {"pageSize": -1}, {"pageToken": "not-a-token!"}, {"status": "TASK_STATE_BOGUS"},
	} {
		r, raw := h.rpc("/", "ListTasks", q, v1)
		require.NotNil(t, r.Error, "%v: %s", q, raw)
		assert.Equal(t, wire.CodeInvalidParams, r.Error.Code, "%v", q)
		requireV10Error(t, raw)
	}
}

func TestPushConfigs(t *testing.T) {
	t.Parallel()
	t.Run("v1.0 JSON-RPC", func(t *testing.T) {
		t.Parallel()
		h := start(t, server.Config{Seed: 21, StepDelay: -1, Agents: agentsFor(dialectCases[0], true)})
		cl := newClient(t, h, dialectCases[0])
		tk := cl.mustSend(sendOpts{})
		res, e := cl.call(wire.OpSetPushConfig, map[string]any{"taskId": tk.ID, "url": "https://hooks.example/a2a", "token": "tok"})
		require.Nil(t, e)
		var pc struct{ ID, TaskID, URL, Token string }
		require.NoError(t, json.Unmarshal(res, &pc))
		assert.NotEmpty(t, pc.ID)
		assert.Equal(t, tk.ID, pc.TaskID)
		assert.Equal(t, "https://hooks.example/a2a", pc.URL)

		res, e = cl.call(wire.OpGetPushConfig, map[string]any{"taskId": tk.ID, "id": pc.ID})
		require.Nil(t, e)
		assert.Contains(t, string(res), "https://hooks.example/a2a")

		res, e = cl.call(wire.OpListPushConfigs, map[string]any{"taskId": tk.ID})
		require.Nil(t, e)
		var l struct{ Configs []json.RawMessage }
		require.NoError(t, json.Unmarshal(res, &l))
		assert.Len(t, l.Configs, 1)

		_, e = cl.call(wire.OpDeletePush, map[string]any{"taskId": tk.ID, "id": pc.ID})
		require.Nil(t, e)
		res, e = cl.call(wire.OpListPushConfigs, map[string]any{"taskId": tk.ID})
		require.Nil(t, e)
		l.Configs = nil
		require.NoError(t, json.Unmarshal(res, &l))
		assert.Empty(t, l.Configs)

		_, e = cl.call(wire.OpGetPushConfig, map[string]any{"taskId": tk.ID, "id": pc.ID})
		require.NotNil(t, e, "a deleted config is gone")
		assert.Equal(t, wire.CodeTaskNotFound, e.Code, "spec §3.1.8: an unknown config is TaskNotFoundError")
		_, e = cl.call(wire.OpSetPushConfig, map[string]any{"taskId": "no-such-task", "url": "https://hooks.example/a2a"})
		require.NotNil(t, e)
		assert.Equal(t, wire.CodeTaskNotFound, e.Code)
	})
	t.Run("v1.0 HTTP+JSON", func(t *testing.T) {
		t.Parallel()
		h := start(t, server.Config{Seed: 22, StepDelay: -1, Agents: agentsFor(dialectCases[0], true)})
		tk := newClient(t, h, dialectCases[0]).mustSend(sendOpts{})
		base := "/rest/tasks/" + tk.ID + "/pushNotificationConfigs"
		status, _, b := h.post(base, []byte(`{"url":"https://hooks.example/r"}`), v1)
		require.Equal(t, http.StatusOK, status, "%s", b)
		schemacheck.Require(t, wire.V10, "TaskPushNotificationConfig", b)
		var pc struct{ ID string }
		require.NoError(t, json.Unmarshal(b, &pc))
		require.NotEmpty(t, pc.ID)
		status, _, b = h.do(http.MethodGet, base+"/"+pc.ID, nil, v1)
		require.Equal(t, http.StatusOK, status, "%s", b)
		schemacheck.Require(t, wire.V10, "TaskPushNotificationConfig", b)
		status, _, b = h.do(http.MethodGet, base, nil, v1)
		require.Equal(t, http.StatusOK, status, "%s", b)
		schemacheck.Require(t, wire.V10, "ListTaskPushNotificationConfigsResponse", b)
		status, _, b = h.do(http.MethodDelete, base+"/"+pc.ID, nil, v1)
		require.Equal(t, http.StatusOK, status, "%s", b)
		status, _, b = h.do(http.MethodGet, base+"/"+pc.ID, nil, v1)
		require.Equal(t, http.StatusNotFound, status, "spec §3.1.8: an unknown config is TaskNotFoundError: %s", b)
		requireRESTStatus(t, status, b)
		assert.Contains(t, string(b), "TASK_NOT_FOUND")
	})
	t.Run("v0.3", func(t *testing.T) {
		t.Parallel()
		h := start(t, server.Config{Seed: 23, StepDelay: -1, Agents: agentsFor(dialectCases[2], true)})
		cl := newClient(t, h, dialectCases[2])
		tk := cl.mustSend(sendOpts{})
		res, e := cl.call(wire.OpSetPushConfig, map[string]any{"taskId": tk.ID, "pushNotificationConfig": map[string]any{"url": "https://hooks.example/3"}})
		require.Nil(t, e)
		var pc struct {
			TaskID                 string
			PushNotificationConfig struct{ ID, URL string }
		}
		require.NoError(t, json.Unmarshal(res, &pc))
		require.Equal(t, tk.ID, pc.TaskID)
		require.NotEmpty(t, pc.PushNotificationConfig.ID)
		cid := pc.PushNotificationConfig.ID
		_, e = cl.call(wire.OpGetPushConfig, map[string]any{"id": tk.ID, "pushNotificationConfigId": cid})
		require.Nil(t, e)
		res, e = cl.call(wire.OpListPushConfigs, map[string]any{"id": tk.ID})
		require.Nil(t, e)
		var l []json.RawMessage
		require.NoError(t, json.Unmarshal(res, &l))
		assert.Len(t, l, 1)
		_, e = cl.call(wire.OpDeletePush, map[string]any{"id": tk.ID, "pushNotificationConfigId": cid})
		require.Nil(t, e)
		res, e = cl.call(wire.OpListPushConfigs, map[string]any{"id": tk.ID})
		require.Nil(t, e)
		l = nil
		require.NoError(t, json.Unmarshal(res, &l))
		assert.Empty(t, l)
		_, e = cl.call(wire.OpGetPushConfig, map[string]any{"id": tk.ID, "pushNotificationConfigId": cid})
		require.NotNil(t, e, "a deleted config is gone")
		assert.Equal(t, wire.CodeTaskNotFound, e.Code, "an unknown config is TaskNotFoundError")
	})
	t.Run("not declared", func(t *testing.T) {
		t.Parallel()
		h := start(t, server.Config{Seed: 24, StepDelay: -1, Agents: agentsFor(dialectCases[0], false)})
		c10, c03 := newClient(t, h, dialectCases[0]), newClient(t, h, dialectCases[2])
		tk := c10.mustSend(sendOpts{})
		for _, call := range []struct {
			c  *dclient
			op wire.Op
			p  map[string]any
		}{
			{c10, wire.OpSetPushConfig, map[string]any{"taskId": tk.ID, "url": "https://hooks.example/x"}},
			{c10, wire.OpGetPushConfig, map[string]any{"taskId": tk.ID, "id": "x"}},
			{c10, wire.OpListPushConfigs, map[string]any{"taskId": tk.ID}},
			{c10, wire.OpDeletePush, map[string]any{"taskId": tk.ID, "id": "x"}},
			{c03, wire.OpSetPushConfig, map[string]any{"taskId": tk.ID, "pushNotificationConfig": map[string]any{"url": "https://hooks.example/x"}}},
			{c03, wire.OpListPushConfigs, map[string]any{"id": tk.ID}},
		} {
			_, e := call.c.call(call.op, call.p)
			require.NotNil(t, e, "%s %s", call.c.c.name, call.op)
			assert.Equal(t, wire.CodePushNotSupported, e.Code, "%s %s", call.c.c.name, call.op)
		}
		status, _, b := h.post("/rest/tasks/"+tk.ID+"/pushNotificationConfigs", []byte(`{"url":"https://hooks.example/r"}`), v1)
		assert.Equal(t, http.StatusBadRequest, status)
		assert.Equal(t, wire.CodePushNotSupported, restErr(t, status, b).Code)
	})
}

func TestExtendedAgentCard(t *testing.T) {
	t.Parallel()
	plain := testCard(wire.V10, false)
	declared := testCard(wire.V10, false)
	declared.Capabilities.ExtendedAgentCard = true
	extended := testCard(wire.V10, false)
	extended.Name = "The Extended Agent"
	h := start(t, server.Config{Seed: 31, StepDelay: -1, Agents: []server.AgentConfig{
		{Name: "plain", Card: plain},
		{Name: "unconfigured", Card: declared},
		{Name: "full", Card: declared, ExtendedCard: extended},
	}})
	for _, tc := range []struct {
		agent string
		code  int
	}{{"plain", wire.CodeUnsupportedOperation}, {"unconfigured", wire.CodeExtendedCardNotConfigured}, {"full", 0}} {
		cl := newClient(t, h, dialectCases[0])
		cl.base = "/agents/" + tc.agent
		res, e := cl.call(wire.OpExtendedCard, map[string]any{})
		status, _, b := h.do(http.MethodGet, cl.base+"/rest/extendedAgentCard", nil, v1)
		if tc.code != 0 {
			require.NotNil(t, e, tc.agent)
			assert.Equal(t, tc.code, e.Code, tc.agent)
			assert.Equal(t, tc.code, restErr(t, status, b).Code, tc.agent)
			continue
		}
		require.Nil(t, e)
		var card struct {
			Name                string
			SupportedInterfaces []struct{ URL string }
		}
		require.NoError(t, json.Unmarshal(res, &card))
		assert.Equal(t, "The Extended Agent", card.Name)
		require.NotEmpty(t, card.SupportedInterfaces)
		assert.Equal(t, h.url+cl.base+"/", card.SupportedInterfaces[0].URL)
		require.Equal(t, http.StatusOK, status, "%s", b)
		schemacheck.Require(t, wire.V10, "AgentCard", b)
	}
	// v0.3 name of the same operation.
	c03 := newClient(t, h, dialectCases[2])
	c03.base = "/agents/unconfigured"
	_, e := c03.call(wire.OpExtendedCard, nil)
	require.NotNil(t, e)
	assert.Equal(t, wire.CodeExtendedCardNotConfigured, e.Code)
}

func TestVersionHeader(t *testing.T) {
	t.Parallel()
	send := func(c *dclient) map[string]any { return c.sendParams(sendOpts{}) }
	lenient := start(t, server.Config{Seed: 41, StepDelay: -1})
	strict := start(t, server.Config{Seed: 41, StepDelay: -1, StrictVersion: true})
	c10 := newClient(t, lenient, dialectCases[0])
	c03 := newClient(t, lenient, dialectCases[2])
	for _, tc := range []struct {
		name   string
		h      *harness
		method string
		params map[string]any
		hdr    map[string]string
		code   int
	}{
		{"v1.0 method, no header", lenient, "SendMessage", send(c10), nil, 0},
		{"v1.0 method, 1.0", lenient, "SendMessage", send(c10), v1, 0},
		{"v1.0 method, 1.0.3", lenient, "SendMessage", send(c10), map[string]string{"A2A-Version": "1.0.3"}, 0},
		{"v1.0 method, 9.9", lenient, "SendMessage", send(c10), map[string]string{"A2A-Version": "9.9"}, wire.CodeVersionNotSupported},
		{"v1.0 method, 1.0.0.0", lenient, "SendMessage", send(c10), map[string]string{"A2A-Version": "1.0.0.0"}, wire.CodeVersionNotSupported},
		{"v1.0 method, 1.0.x", lenient, "SendMessage", send(c10), map[string]string{"A2A-Version": "1.0.x"}, wire.CodeVersionNotSupported},
		{"v1.0 method, 1.0.", lenient, "SendMessage", send(c10), map[string]string{"A2A-Version": "1.0."}, wire.CodeVersionNotSupported},
		{"v0.3 method, 9.9", lenient, "message/send", send(c03), map[string]string{"A2A-Version": "9.9"}, wire.CodeVersionNotSupported},
		{"strict: v1.0 method, no header", strict, "SendMessage", send(c10), nil, wire.CodeVersionNotSupported},
		{"strict: v1.0 method, 1.0", strict, "SendMessage", send(c10), v1, 0},
		{"strict: v0.3 method, no header", strict, "message/send", send(c03), nil, 0},
	} {
		r, raw := tc.h.rpc("/", tc.method, tc.params, tc.hdr)
		d := wire.V10
		if tc.method == "message/send" {
			d = wire.V03
		}
		requireValidRPC(t, d, wire.OpSend, raw)
		if tc.code == 0 {
			assert.Nil(t, r.Error, "%s: %s", tc.name, raw)
		} else if assert.NotNil(t, r.Error, tc.name) {
			assert.Equal(t, tc.code, r.Error.Code, tc.name)
		}
	}
	status, _, b := lenient.do(http.MethodGet, "/rest/tasks", nil, map[string]string{"A2A-Version": "9.9"})
	assert.Equal(t, wire.CodeVersionNotSupported, restErr(t, status, b).Code)
	status, _, b = strict.do(http.MethodGet, "/rest/tasks", nil, nil)
	assert.Equal(t, wire.CodeVersionNotSupported, restErr(t, status, b).Code, "strict REST without a header")
}

func TestA2AJSONContentType(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 42, StepDelay: -1})
	cl := newClient(t, h, dialectCases[0])
	hdr := map[string]string{"A2A-Version": "1.0", "Content-Type": "application/a2a+json"}
	status, rh, b := h.post("/", rpcBody("SendMessage", cl.sendParams(sendOpts{})), hdr)
	require.Equal(t, http.StatusOK, status, "%s", b)
	require.Contains(t, rh.Get("Content-Type"), "json")
	requireValidRPC(t, wire.V10, wire.OpSend, b)
	var r rpcResponse
	require.NoError(t, json.Unmarshal(b, &r))
	require.Nil(t, r.Error)

	body, _ := json.Marshal(cl.sendParams(sendOpts{}))
	status, rh, b = h.post("/rest/message:send", body, hdr)
	require.Equal(t, http.StatusOK, status, "%s", b)
	assert.Equal(t, "application/a2a+json", rh.Get("Content-Type"), "REST answers in the media type it was sent")
	schemacheck.Require(t, wire.V10, "SendMessageResponse", b)
}

// The default agent's generated card declares streaming, and a skill that
// needs input is not chosen unless asked for.
func TestDefaultAgent(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 43, StepDelay: -1})
	c := h.srv.Card("agent")
	require.NotNil(t, c)
	assert.True(t, c.Capabilities.Streaming)
	assert.Equal(t, []string{"agent"}, h.srv.AgentNames())
	tk := newClient(t, h, dialectCases[0]).mustSend(sendOpts{})
	assert.Equal(t, wire.StateCompleted, tk.State)
	var ask *cards.Skill
	for i := range c.Skills {
		if c.Skills[i].NeedsInput {
			ask = &c.Skills[i]
		}
	}
	require.NotNil(t, ask)
	tk = newClient(t, h, dialectCases[0]).mustSend(sendOpts{skill: ask.ID})
	assert.Equal(t, wire.StateInputRequired, tk.State)
}
