package restroute

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/wire"
)

func TestParseRoutes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		method, path string
		want         Route
	}{
		{"POST", "/message:send", Route{Op: wire.OpSend, Method: "POST /message:send"}},
		{"POST", "/acme/message:stream", Route{Op: wire.OpStream, Method: "POST /message:stream", Tenant: "acme"}},
		{"HEAD", "/tasks", Route{Op: wire.OpListTasks, Method: "GET /tasks"}},
		{"GET", "/tasks/t%2F1", Route{Op: wire.OpGetTask, Method: "GET /tasks/{id}", TaskID: "t/1"}},
		{"POST", "/tasks/t1:cancel", Route{Op: wire.OpCancelTask, Method: "POST /tasks/{id}:cancel", TaskID: "t1"}},
		{"GET", "/tasks/t1:subscribe", Route{Op: wire.OpSubscribe, Method: "GET /tasks/{id}:subscribe", TaskID: "t1"}},
		{"POST", "/tasks/t1/subscribe", Route{Op: wire.OpSubscribe, Method: "POST " + LegacySubscribeRoute, TaskID: "t1"}},
		{"DELETE", "/tasks/t1/pushNotificationConfigs/c1", Route{Op: wire.OpDeletePush, Method: "DELETE /tasks/{id}/pushNotificationConfigs/{configId}", TaskID: "t1", ConfigID: "c1"}},
	} {
		got, e := Parse(tc.method, tc.path, 16)
		require.Nil(t, e, "%s %s", tc.method, tc.path)
		tc.want.maxID = 16
		assert.Equal(t, tc.want, got, "%s %s", tc.method, tc.path)
	}
}

func TestParseRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		method, path string
		status       int
		noRoute      bool
		allow        string
	}{
		{"GET", "/nope/deeper/still", 404, true, ""},
		{"GET", "/tasks/", 404, true, ""},
		{"GET", "/tasks/t1:explode", 404, true, ""},
		{"DELETE", "/tasks/t1:cancel", 405, false, "POST"},
		{"PUT", "/tasks/t1/pushNotificationConfigs", 405, false, "GET, POST"},
		{"GET", "/tasks/" + strings.Repeat("x", 17), 400, false, ""},
		{"GET", "/tasks/a%zz", 400, false, ""},
	} {
		rt, e := Parse(tc.method, tc.path, 16)
		require.NotNil(t, e, "%s %s", tc.method, tc.path)
		assert.Equal(t, tc.status, e.HTTPStatus, "%s %s", tc.method, tc.path)
		assert.Equal(t, tc.noRoute, IsNoRoute(e), "%s %s", tc.method, tc.path)
		assert.Equal(t, tc.allow, rt.Allow, "%s %s", tc.method, tc.path)
	}
}

func TestQueryOfListTasks(t *testing.T) {
	t.Parallel()
	q := url.Values{"pageSize": {"5"}, "status": {"TASK_STATE_WORKING"}, "includeArtifacts": {"true"}, "contextId": {"c"}, "historyLength": {"2"}}
	req, e := Query(Route{Op: wire.OpListTasks, Tenant: "acme"}, q)
	require.Nil(t, e)
	assert.Equal(t, 5, req.List.PageSize)
	assert.Equal(t, wire.StateWorking, req.List.State)
	assert.True(t, req.List.IncludeArtifacts)
	assert.Equal(t, "c", req.List.ContextID)
	assert.Equal(t, "acme", req.Tenant)
	require.NotNil(t, req.HistoryLength)
	assert.Equal(t, 2, *req.HistoryLength)

	for name, bad := range map[string]url.Values{
		"pageSize":             {"pageSize": {"0"}},
		"status":               {"status": {"busy"}},
		"includeArtifacts":     {"includeArtifacts": {"yes"}},
		"statusTimestampAfter": {"statusTimestampAfter": {"yesterday"}},
		"historyLength":        {"historyLength": {"-1"}},
	} {
		_, e := Query(Route{Op: wire.OpListTasks}, bad)
		if assert.NotNil(t, e, name) {
			assert.Equal(t, http.StatusBadRequest, e.HTTPStatus, name)
			assert.Contains(t, e.Message, name)
		}
	}
}

func TestWithTaskIDFromPath(t *testing.T) {
	t.Parallel()
	b, e := WithTaskID([]byte(`{"url":"http://127.0.0.1/h"}`), "t1")
	require.Nil(t, e)
	assert.JSONEq(t, `{"url":"http://127.0.0.1/h","taskId":"t1"}`, string(b))
	_, e = WithTaskID([]byte(`{"taskId":"other"}`), "t1")
	assert.NotNil(t, e, "a body naming another task")
	_, e = WithTaskID([]byte(`[]`), "t1")
	assert.NotNil(t, e, "not an object")
}

func TestAppendSegmentsSplitsAsStringsSplit(t *testing.T) {
	for _, p := range []string{"", "a", "a/b", "/", "//", "a//b/", "t/tasks/x:cancel", "a/b/c/d/e/f/g/h"} {
		var buf [2]string
		got := appendSegments(buf[:0], p)
		if want := strings.Split(p, "/"); !slices.Equal(got, want) {
			t.Errorf("appendSegments(%q) = %q, want %q", p, got, want)
		}
	}
}
