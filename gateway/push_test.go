package gateway

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPushForwarderOnlyForUpstream: the gateway's webhook (/_gateway/push/N)
// forwarded notifications from anyone who could reach the gateway, so a
// third party could forge pushes to a client's webhook. Only a caller that
// has the URL the gateway gave the upstream (with its key) may push.
func TestPushForwarderOnlyForUpstream(t *testing.T) {
	t.Parallel()
	var got atomic.Int32
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer hook.Close()
	g, err := New(Config{Upstream: "http://127.0.0.1:1", Seed: 1})
	require.NoError(t, err)
	own := g.ownHook("http://gw", hook.URL+"/hook")
	require.Contains(t, own, "?key=")

	post := func(path string) int {
		r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{"taskId":"up-1","status":{"state":"completed"}}`))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		g.ServeHTTP(w, r)
		return w.Code
	}
	assert.Equal(t, http.StatusForbidden, post("/_gateway/push/0"), "no key")
	assert.Equal(t, http.StatusForbidden, post("/_gateway/push/0?key=guess"), "a wrong key")
	assert.Equal(t, int32(0), got.Load(), "nothing reached the webhook")
	assert.Equal(t, http.StatusNoContent, post(strings.TrimPrefix(own, "http://gw")), "the upstream's URL")
	assert.Equal(t, int32(1), got.Load())
	g2, _ := New(Config{Upstream: "http://127.0.0.1:1", Seed: 1})
	assert.NotEqual(t, own, g2.ownHook("http://gw", hook.URL+"/hook"), "each gateway has its own key")
}

// TestPushForwarderFollowsNoRedirect: a webhook answering 307 to another
// host made the gateway repost the notification, token included, there.
func TestPushForwarderFollowsNoRedirect(t *testing.T) {
	t.Parallel()
	var stolen atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stolen.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	defer elsewhere.Close()
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/collect", http.StatusTemporaryRedirect)
	}))
	defer hook.Close()
	g, err := New(Config{Upstream: "http://127.0.0.1:1", Seed: 1})
	require.NoError(t, err)
	own := g.ownHook("http://gw", hook.URL+"/hook")
	r := httptest.NewRequest(http.MethodPost, strings.TrimPrefix(own, "http://gw"), strings.NewReader(`{"taskId":"up-1"}`))
	r.Header.Set("X-A2A-Notification-Token", "tok")
	w := httptest.NewRecorder()
	g.ServeHTTP(w, r)
	assert.Equal(t, http.StatusTemporaryRedirect, w.Code, "the webhook's answer is passed on, not followed")
	assert.Equal(t, int32(0), stolen.Load(), "the notification and its token went to another host")
}

// TestAliasNeverBecomesAReservedPath: a v0.1 client chooses its task ids; a
// task named "_a2amock" gave an alias that the gateway rewrote back into
// /_a2amock/..., the upstream's control API, reached from the gateway's
// loopback connection.
func TestAliasNeverBecomesAReservedPath(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer up.Close()
	g, err := New(Config{Upstream: up.URL, Seed: 1})
	require.NoError(t, err)
	alias := g.Alias(ChannelReply, "_a2amock")
	for _, p := range []string{"/" + alias + "/journal", "/" + alias + "/reset"} {
		w := httptest.NewRecorder()
		g.ServeHTTP(w, httptest.NewRequest(http.MethodPost, p, nil))
		assert.Equal(t, http.StatusNotFound, w.Code, p)
	}
	assert.Equal(t, int32(0), hits.Load(), "the upstream saw a control call")
	w := httptest.NewRecorder()
	g.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/rest/tasks/"+g.Alias(ChannelReply, "t-1"), nil))
	assert.Equal(t, http.StatusOK, w.Code, "other aliases still pass")
	assert.Equal(t, int32(1), hits.Load())
}
