package interop

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/wire"
)

// pushAgent is an agent declaring push notifications whose first skill
// parks in input-required, so a config can be registered before the task
// moves on; it returns the config and that skill's id.
func pushAgent(seed uint64, specs ...string) (server.AgentConfig, string) {
	var skill string
	ac := agentWith("pusher", seed, func(c *cards.Card) {
		c.Capabilities.PushNotifications = true
		for i := range c.Skills {
			c.Skills[i].NeedsInput = false
		}
		c.Skills[0].NeedsInput = true
		skill = c.Skills[0].ID
	})
	for _, s := range specs {
		ac.Behaviors = append(ac.Behaviors, must(behaviors.Parse(s)))
	}
	return ac, skill
}

func must(b *behaviors.Scoped, err error) behaviors.Behavior {
	if err != nil {
		panic(err)
	}
	return b
}

// TestV1PushDelivery registers a webhook with a2a-go v2's
// CreateTaskPushConfig and checks what the mock delivers to it.
func TestV1PushDelivery(t *testing.T) {
	t.Parallel()
	forEachV1Binding(t, func(t *testing.T, b v1Binding) {
		ac, skill := pushAgent(61)
		s := startMock(t, server.Config{Seed: 61, StepDelay: -1, Agents: []server.AgentConfig{ac}})
		hook := testkit.Webhook(t)
		c, _ := v1Client(t, s.URL(), b)
		ctx := testCtx(t)

		first := userText("watch this")
		first.Metadata = map[string]any{"skillId": skill}
		task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: first})
		require.Equal(t, a2a.TaskStateInputRequired, task.Status.State)
		_, err := c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: task.ID, ID: "hook", URL: hook.URL, Token: "tok-61",
			Auth: &a2a.PushAuthInfo{Scheme: "Bearer", Credentials: "cred-61"}})
		require.NoError(t, err)

		next := userText("here is more")
		next.TaskID, next.ContextID = task.ID, task.ContextID
		done := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: next})
		require.Equal(t, a2a.TaskStateCompleted, done.Status.State)

		hook.AssertReceivedStates(t, string(task.ID), wire.StateWorking, wire.StateCompleted)
		for _, p := range hook.ReceivedFor(string(task.ID)) {
			assert.Equal(t, "tok-61", p.Header.Get("A2A-Notification-Token"))
			assert.Equal(t, "Bearer cred-61", p.Header.Get("Authorization"))
		}
	})
}

// TestV1PushTerminalDroppedClientPolls drops the terminal notification: a
// client that waits for pushes must fall back to GetTask.
func TestV1PushTerminalDroppedClientPolls(t *testing.T) {
	t.Parallel()
	ac, skill := pushAgent(62, "push-drop:terminal=true")
	s := startMock(t, server.Config{Seed: 62, StepDelay: 10 * time.Millisecond, Agents: []server.AgentConfig{ac}})
	hook := testkit.Webhook(t)
	c, _ := v1Client(t, s.URL(), v1Bindings[0])
	ctx := testCtx(t)

	first := userText("watch this")
	first.Metadata = map[string]any{"skillId": skill}
	task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: first})
	_, err := c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: task.ID, URL: hook.URL})
	require.NoError(t, err)
	next := userText("go on")
	next.TaskID, next.ContextID = task.ID, task.ContextID
	_ = sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: next, Config: &a2a.SendMessageConfig{ReturnImmediately: true}})

	// The client waits a bounded time for the terminal push, then polls.
	id := string(task.ID)
	require.False(t, hook.WaitFor(300*time.Millisecond, func(ps []testkit.Push) bool {
		for _, p := range ps {
			if p.TaskID == id && p.State.Terminal() {
				return true
			}
		}
		return false
	}), "the terminal push is dropped")
	got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCompleted, got.Status.State)
	testkit.AssertFellBackToPolling(t, hook, s.Journal().Entries(), id)
}

// TestV1PushHungWebhook: a webhook that never answers holds neither the
// task nor the server's Close (goleak in TestMain checks nothing is left).
// The webhook holds every delivery for 30s and the push timeout is a
// minute, so the answer and Close can only come within their 10s guards
// if neither waits for it (wall-time bounds of 2s and 3s on both failed on
// a loaded machine; that a delivery times out is server/push_test's).
func TestV1PushHungWebhook(t *testing.T) {
	t.Parallel()
	ac, skill := pushAgent(63)
	s := startMock(t, server.Config{Seed: 63, StepDelay: -1, PushTimeout: time.Minute, Agents: []server.AgentConfig{ac}})
	hook := testkit.Webhook(t)
	hook.SetDelay(time.Hour)
	c, _ := v1Client(t, s.URL(), v1Bindings[0])
	ctx := testCtx(t)

	first := userText("watch this")
	first.Metadata = map[string]any{"skillId": skill}
	task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: first})
	_, err := c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: task.ID, URL: hook.URL})
	require.NoError(t, err)
	next := userText("go on")
	next.TaskID, next.ContextID = task.ID, task.ContextID
	done := sendTask(shortCtx(t, 10*time.Second), t, c, &a2a.SendMessageRequest{Message: next})
	assert.Equal(t, a2a.TaskStateCompleted, done.Status.State, "the task does not wait for its webhook")
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for a hung webhook")
	}
	n := 0
	for _, e := range s.Journal().Entries() {
		if e.Kind == server.EntryPush {
			n++
		}
	}
	assert.Positive(t, n, "the notifications queued when the task completed were attempted (and cut) before Close returned")
}

// TestBehaviorPushAuthDialect shows what a receiver built on a2a-go v2
// (which decodes a notification as a2a.StreamResponse and, like the SDK's
// own sender, reads the token from A2A-Notification-Token) makes of each
// presentation. It loses the token when it comes as X-A2A-Notification-Token
// or Authorization, ignores the Content-Type, and cannot decode a bare Task.
func TestBehaviorPushAuthDialect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec     string
		token    bool // the SDK-style receiver finds the token
		decodes  bool // a2a.StreamResponse decodes the body
		ct, auth string
	}{
		{"push-auth-dialect", false, true, "application/a2a+json", ""},
		{"push-auth-dialect:token=v10,content-type=none", true, true, "", ""},
		{"push-auth-dialect:token=authorization,content-type=json", false, true, "application/json", "Bearer tok-64"},
		{"push-auth-dialect:token=keep,body=task", true, false, "application/a2a+json", ""},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			t.Parallel()
			ac, skill := pushAgent(64, tc.spec)
			s := startMock(t, server.Config{Seed: 64, StepDelay: -1, Agents: []server.AgentConfig{ac}})
			hook := testkit.Webhook(t)
			c, _ := v1Client(t, s.URL(), v1Bindings[0])
			ctx := testCtx(t)
			first := userText("watch this")
			first.Metadata = map[string]any{"skillId": skill}
			task := sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: first})
			_, err := c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: task.ID, URL: hook.URL, Token: "tok-64"})
			require.NoError(t, err)
			next := userText("go on")
			next.TaskID, next.ContextID = task.ID, task.ContextID
			sendTask(ctx, t, c, &a2a.SendMessageRequest{Message: next})
			require.True(t, hook.WaitFor(5*time.Second, func(ps []testkit.Push) bool { return len(ps) >= 2 }))
			for _, p := range hook.Received() {
				assert.Equal(t, tc.token, p.Header.Get("A2A-Notification-Token") == "tok-64", "token: %v", p.Header)
				assert.Equal(t, tc.ct, p.Header.Get("Content-Type"))
				assert.Equal(t, tc.auth, p.Header.Get("Authorization"))
				var sr a2a.StreamResponse
				err := json.Unmarshal(p.Body, &sr)
				if tc.decodes {
					require.NoError(t, err, "%s", p.Body)
					assert.NotNil(t, sr.Event)
				} else {
					assert.Error(t, err, "a bare Task is not a StreamResponse: %s", p.Body)
				}
			}
		})
	}
}
