package behaviors_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

type listPage struct {
	Tasks []struct {
		ID string `json:"id"`
	} `json:"tasks"`
	NextPageToken string `json:"nextPageToken"`
}

func (r *rig) listPage(size int, token string) listPage {
	r.t.Helper()
	rep := r.rpc("ListTasks", map[string]any{"pageSize": size, "pageToken": token})
	require.Nil(r.t, rep.Error)
	var p listPage
	require.NoError(r.t, json.Unmarshal(rep.Result, &p))
	return p
}

func TestListPaginationLoopToken(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "list-pagination-loop"))
	for range 3 {
		r.send(wire.V10, "hi", "s1", false)
	}
	first := r.listPage(1, "")
	require.Len(t, first.Tasks, 1)
	require.NotEmpty(t, first.NextPageToken)
	second := r.listPage(1, first.NextPageToken)
	assert.Equal(t, first, second, "page 2 is page 1 again, with the same token")

	// REST too.
	resp, body := r.restCall(http.MethodGet, "/tasks?pageSize=1&pageToken="+first.NextPageToken, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var rest listPage
	require.NoError(t, json.Unmarshal(body, &rest))
	assert.Equal(t, first.NextPageToken, rest.NextPageToken)

	// The journal keeps the token the client sent and the one it got.
	var sent, got []string
	for _, e := range r.srv.Journal().Entries() {
		if e.Op != wire.OpListTasks {
			continue
		}
		switch e.Kind {
		case server.EntryRequest:
			sent = append(sent, e.PageToken)
		case server.EntryResponse:
			got = append(got, e.PageToken)
		}
	}
	tok := first.NextPageToken
	assert.Equal(t, []string{"", tok, tok}, sent)
	assert.Equal(t, []string{tok, tok, tok}, got)
}

func TestListPaginationLoopSize(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "list-pagination-loop:ignore=size"))
	for range 3 {
		r.send(wire.V10, "hi", "s1", false)
	}
	p := r.listPage(1, "")
	assert.Len(t, p.Tasks, 3, "pageSize 1 ignored")
	assert.Empty(t, p.NextPageToken)
}

func TestListPaginationLoopScope(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{}, parse(t, "list-pagination-loop:call=1"))
	for range 2 {
		r.send(wire.V10, "hi", "s1", false)
	}
	first := r.listPage(1, "")
	second := r.listPage(1, first.NextPageToken)
	assert.NotEqual(t, first.Tasks[0].ID, second.Tasks[0].ID, "call 2 is honest")
	_, err := behaviorsParse("list-pagination-loop:ignore=filter")
	assert.Error(t, err)
}

// lists=push-configs makes ListTaskPushNotificationConfigs loop the same
// way, and leaves ListTasks honest; the journal keeps both listings'
// tokens.
func TestListPaginationLoopPushConfigs(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOptions{caps: &cards.Capabilities{Streaming: true, PushNotifications: true}},
		parse(t, "list-pagination-loop:lists=push-configs"))
	id := r.send(wire.V10, "hi", "s1", false)
	r.send(wire.V10, "hi", "s1", false)
	for _, c := range []string{"c1", "c2", "c3"} {
		rep := r.rpc("CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "id": c, "url": "https://example.com/hook"})
		require.Nil(t, rep.Error)
	}
	type configPage struct {
		Configs []struct {
			ID string `json:"id"`
		} `json:"configs"`
		NextPageToken string `json:"nextPageToken"`
	}
	list := func(token string) configPage {
		rep := r.rpc("ListTaskPushNotificationConfigs", map[string]any{"taskId": id, "pageSize": 1, "pageToken": token})
		require.Nil(t, rep.Error)
		var p configPage
		require.NoError(t, json.Unmarshal(rep.Result, &p))
		return p
	}
	first := list("")
	require.Len(t, first.Configs, 1)
	require.NotEmpty(t, first.NextPageToken)
	assert.Equal(t, first, list(first.NextPageToken), "page 2 is page 1 again, with the same token")

	tasks := r.listPage(1, "")
	assert.NotEqual(t, tasks, r.listPage(1, tasks.NextPageToken), "ListTasks still pages")

	var tokens []string
	for _, e := range r.srv.Journal().Entries() {
		if e.Op == wire.OpListPushConfigs && (e.Kind == server.EntryRequest || e.Kind == server.EntryResponse) {
			tokens = append(tokens, string(e.Kind)+":"+e.PageToken)
		}
	}
	tok := first.NextPageToken
	assert.Equal(t, []string{"request:", "response:" + tok, "request:" + tok, "response:" + tok}, tokens)

	_, err := behaviorsParse("list-pagination-loop:lists=artifacts")
	assert.ErrorContains(t, err, `lists takes tasks and push-configs, not "artifacts"`)
}
