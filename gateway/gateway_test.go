package gateway

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAliasesAreDeterministicPerChannel(t *testing.T) {
	t.Parallel()
	g1, err := New(Config{Upstream: "http://127.0.0.1:1", Seed: 1})
	require.NoError(t, err)
	g2, _ := New(Config{Upstream: "http://127.0.0.1:1", Seed: 1})
	g3, _ := New(Config{Upstream: "http://127.0.0.1:1", Seed: 2})
	a := g1.Alias(ChannelReply, "up-1")
	assert.Equal(t, a, g2.Alias(ChannelReply, "up-1"), "same seed, same alias")
	assert.NotEqual(t, a, g3.Alias(ChannelReply, "up-1"))
	assert.NotEqual(t, a, g1.Alias(ChannelPush, "up-1"), "each channel has its own alias")
	up, ok := g1.Upstream(a)
	require.True(t, ok)
	assert.Equal(t, "up-1", up)
	assert.NotEqual(t, g1.CorrelationID("up-1"), g3.CorrelationID("up-1"), "the seed drives correlation ids")

	_, err = New(Config{Upstream: "ftp://x"})
	assert.Error(t, err)
}

func TestRewriteBothWays(t *testing.T) {
	t.Parallel()
	g, _ := New(Config{Upstream: "http://127.0.0.1:1", Seed: 1, PushKey: "k"})
	out, corr := g.rewriteResponseBody([]byte(`{"jsonrpc":"2.0","id":"up-1","result":{"task":{"id":"up-1","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}}`), ChannelReply, "http://gw")
	alias := g.Alias(ChannelReply, "up-1")
	assert.Contains(t, string(out), `"id":"`+alias+`"`)
	assert.Contains(t, string(out), `"correlationId":"`+corr+`"`)
	assert.Equal(t, g.CorrelationID("up-1"), corr)

	in := g.rewriteRequestBody([]byte(`{"jsonrpc":"2.0","id":"`+alias+`","method":"GetTask","params":{"id":"`+alias+`"}}`), "http://gw", false)
	assert.Contains(t, string(in), `"params":{"id":"up-1"}`)
	assert.Contains(t, string(in), `"id":"`+alias+`","jsonrpc"`, "the envelope id is not a task id")
	assert.Equal(t, "/rest/tasks/up-1:cancel", g.rewritePathIn("/rest/tasks/"+alias+":cancel"))

	in = g.rewriteRequestBody([]byte(`{"jsonrpc":"2.0","id":1,"method":"CreateTaskPushNotificationConfig","params":{"taskId":"`+alias+`","url":"http://127.0.0.1:9/hook"}}`), "http://gw", false)
	assert.Contains(t, string(in), `"url":"http://gw/_gateway/push/0?key=k"`)
	out, _ = g.rewriteResponseBody([]byte(`{"result":{"taskId":"up-1","url":"http://gw/_gateway/push/0?key=k"}}`), ChannelReply, "http://gw")
	assert.Contains(t, string(out), `"url":"http://127.0.0.1:9/hook"`, "the client sees its own webhook")
	assert.Error(t, g.checkForward("http://10.1.1.1/x"))
	assert.NoError(t, g.checkForward("http://127.0.0.1:9/x"))
}
