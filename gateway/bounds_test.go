package gateway

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAliasMapsShrink: the gateway kept every alias and webhook it ever
// made, so a long run (or a client minting ids) grew it without bound. It
// keeps the newest MaxTasks task ids and webhooks.
func TestAliasMapsShrink(t *testing.T) {
	t.Parallel()
	g, err := New(Config{Upstream: "http://127.0.0.1:1", Seed: 1, MaxTasks: 3})
	require.NoError(t, err)
	var first, last string
	for i := range 50 {
		up := fmt.Sprintf("up-%d", i)
		a := g.Alias(ChannelReply, up)
		g.Alias(ChannelStream, up)
		g.Alias(ChannelPush, up)
		if i == 0 {
			first = a
		}
		last = a
	}
	aliases, _ := g.Sizes()
	assert.Equal(t, 9, aliases, "three channels of the three newest tasks")
	_, ok := g.Upstream(first)
	assert.False(t, ok, "the oldest task's aliases are forgotten")
	up, ok := g.Upstream(last)
	assert.True(t, ok)
	assert.Equal(t, "up-49", up)
	assert.Equal(t, last, g.Alias(ChannelReply, "up-49"), "an alias stays the same while kept")

	var own []string
	for i := range 50 {
		own = append(own, g.ownHook("http://gw", fmt.Sprintf("http://127.0.0.1:9/hook-%d", i)))
	}
	_, hooks := g.Sizes()
	assert.Equal(t, 3, hooks)
	post := func(u string) int {
		r := httptest.NewRequest(http.MethodPost, strings.TrimPrefix(u, "http://gw"), strings.NewReader(`{}`))
		w := httptest.NewRecorder()
		g.ServeHTTP(w, r)
		return w.Code
	}
	assert.Equal(t, http.StatusNotFound, post(own[0]), "a forgotten webhook")
	dest, ok := g.clientHook(own[49])
	assert.True(t, ok)
	assert.Equal(t, "http://127.0.0.1:9/hook-49", dest)
	dest, ok = g.clientHook(strings.Replace(own[49], "http://gw", "http://other-host:1", 1))
	assert.True(t, ok, "the gateway's own URL is recognised whatever host it was reached by")
	assert.Equal(t, "http://127.0.0.1:9/hook-49", dest)
	_, ok = g.clientHook(strings.Split(own[49], "?")[0] + "?key=wrong")
	assert.False(t, ok)
}

// TestOversizedBodyRefused: a body over the bound was cut at 8 MiB and the
// rest forwarded as if it were the whole request.
func TestOversizedBodyRefused(t *testing.T) {
	t.Parallel()
	g, err := New(Config{Upstream: "http://127.0.0.1:1", Seed: 1})
	require.NoError(t, err)
	w := httptest.NewRecorder()
	g.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(strings.Repeat("x", maxBody+1))))
	assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code)
}
