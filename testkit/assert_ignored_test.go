package testkit_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/wire"
)

// A client that sends a v1.0 agent v0.3's blocking and
// pushNotificationConfig fails AssertNoIgnoredFields, which names each field
// and what v1.0 calls it; sends of v1.0 fields only pass.
func TestAssertNoIgnoredFields(t *testing.T) {
	t.Parallel()
	m := testkit.Start(t, testkit.WithSeed(8), testkit.WithStepDelay(-1))
	c := &rawClient{t: t, url: m.AgentURL("agent") + "/", version: "1.0"}
	c.send("m1", "hi", "", "")
	passes(t, func(rt *recT) bool { return testkit.AssertNoIgnoredFields(rt, m.Journal()) })

	c.call("SendMessage", map[string]any{
		"message": map[string]any{"messageId": "m2", "role": "ROLE_USER", "kind": "message",
			"parts": []any{map[string]any{"kind": "text", "text": "hi"}}},
		"configuration": map[string]any{"blocking": false, "pushNotificationConfig": map[string]any{"url": "http://127.0.0.1:1/hook"}},
	})
	msg := fails(t, func(rt *recT) bool { return testkit.AssertNoIgnoredFields(rt, m.Journal(), "the %s client", "v0.3") },
		"1 of 2 request(s) carried fields the agent ignored",
		"client did: sent 2 request(s)",
		`SendMessage over JSONRPC (entry `, `message "m2"): configuration.blocking (v0.3's; v1.0 reads returnImmediately, its inverse`,
		"configuration.pushNotificationConfig (v0.3's; v1.0 reads taskPushNotificationConfig, so no push was registered)",
		"message.kind (v0.3's discriminator", "message.parts[0].kind (v0.3's part discriminator",
		"the v0.3 client")
	assert.NotContains(t, msg, `"m1"`, "the first send ignored nothing")

	st := &stoppingT{}
	testkit.RequireNoIgnoredFields(st, m.Journal())
	assert.True(t, st.stopped)

	// Any request, not only a send: the proto's page_size where v1.0's
	// JSON reads pageSize, v0.3's metadata on GetTask.
	other := testkit.Start(t, testkit.WithSeed(8), testkit.WithStepDelay(-1))
	c = &rawClient{t: t, url: other.AgentURL("agent") + "/", version: "1.0"}
	task := c.send("m1", "hi", "", "")
	c.call("ListTasks", map[string]any{"pageSize": 1})
	c.call("GetTask", map[string]any{"id": task["id"]})
	passes(t, func(rt *recT) bool { return testkit.AssertNoIgnoredFields(rt, other.Journal()) })
	c.call("ListTasks", map[string]any{"page_size": 1})
	c.call("GetTask", map[string]any{"id": task["id"], "metadata": map[string]any{}})
	msg = fails(t, func(rt *recT) bool { return testkit.AssertNoIgnoredFields(rt, other.Journal()) },
		"2 of 5 request(s) carried fields the agent ignored", "client did: sent 5 request(s)",
		"ListTasks over JSONRPC (entry ", "): page_size", "GetTask over JSONRPC (entry ", "): metadata")
	assert.NotContains(t, msg, "message \"", "a request without a message names none")

	// The other way round: v1.0's returnImmediately sent to a v0.3 agent.
	v03 := testkit.Start(t, testkit.WithSeed(8), testkit.WithStepDelay(-1), testkit.WithDialect(wire.V03))
	c = &rawClient{t: t, url: v03.AgentURL("agent") + "/"}
	c.call("message/send", map[string]any{
		"message":       map[string]any{"kind": "message", "messageId": "m3", "role": "user", "parts": []any{map[string]any{"kind": "text", "text": "hi"}}},
		"configuration": map[string]any{"returnImmediately": true},
	})
	fails(t, func(rt *recT) bool { return testkit.AssertNoIgnoredFields(rt, v03.Journal()) },
		`message/send over JSONRPC (entry 1, message "m3"): configuration.returnImmediately (v1.0's; v0.3 reads blocking: false instead, and without it a send blocks)`)
}
