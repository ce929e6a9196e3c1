package behaviors_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/wire"
)

// pushRig is a rig whose agent declares push notifications, with a webhook
// receiver.
type pushRig struct {
	*rig
	hook *testkit.WebhookReceiver
}

func newPushRig(t *testing.T, specs ...string) *pushRig {
	t.Helper()
	return newPushRigWith(t, rigOptions{}, specs...)
}

// newPushRigWith is newPushRig on a server tuned by o (its clock, say).
func newPushRigWith(t *testing.T, o rigOptions, specs ...string) *pushRig {
	t.Helper()
	o.caps = &cards.Capabilities{Streaming: true, PushNotifications: true}
	r := newRig(t, o, parseAll(t, specs)...)
	return &pushRig{rig: r, hook: testkit.Webhook(t)}
}

// sendWithPush sends a v1.0 message with an inline push config and returns
// the task id.
func (p *pushRig) sendWithPush(returnImmediately bool) string {
	p.t.Helper()
	rep := p.rpc("SendMessage", map[string]any{
		"message": message(wire.V10, "hi", "s1", ""),
		"configuration": map[string]any{"returnImmediately": returnImmediately,
			"taskPushNotificationConfig": map[string]any{"url": p.hook.URL, "token": "tok"}},
	})
	require.Nil(p.t, rep.Error, "%+v", rep.Error)
	var res struct {
		Task struct{ ID string } `json:"task"`
	}
	require.NoError(p.t, json.Unmarshal(rep.Result, &res))
	require.NotEmpty(p.t, res.Task.ID)
	return res.Task.ID
}

// pushAttempts counts the journal's push deliveries for task id.
func (p *pushRig) pushAttempts(id string) int {
	n := 0
	for _, e := range p.srv.Journal().Entries() {
		if e.Kind == server.EntryPush && e.TaskID == id {
			n++
		}
	}
	return n
}

// settle waits until the journal shows n deliveries for task id and the
// webhook has them, then closes the server: Close returns once the push
// queue has been worked off, what it cuts short still journaled as
// attempted. Every notification of a task answered by a blocking send was
// queued before the answer, so no delivery beyond n can come later, and
// none was attempted (a 50ms sleep only gave an extra one a chance to
// show). The rig serves no more requests after it.
func (p *pushRig) settle(id string, n int) {
	p.t.Helper()
	require.Eventually(p.t, func() bool { return p.pushAttempts(id) >= n && len(p.hook.ReceivedFor(id)) >= n },
		10*time.Second, 5*time.Millisecond, "want %d deliveries, journal has %d", n, p.pushAttempts(id))
	require.NoError(p.t, p.srv.Close())
	require.Equal(p.t, n, p.pushAttempts(id), "deliveries attempted for task %s", id)
}

func parseAll(t *testing.T, specs []string) []behaviorsBehavior {
	t.Helper()
	out := make([]behaviorsBehavior, 0, len(specs))
	for _, s := range specs {
		out = append(out, parse(t, s))
	}
	return out
}

// honestPushes is what an honest v1.0 agent sends for skill s1.
var honestPushes = []string{"submitted", "working", "artifact", "completed"}

// pushKinds renders the notifications of task id: the state, or "artifact".
func pushKinds(h *testkit.WebhookReceiver, id string) []string {
	var out []string
	for _, p := range h.ReceivedFor(id) {
		if p.State != wire.StateUnspecified {
			out = append(out, string(p.State))
		} else {
			out = append(out, p.Kind)
		}
	}
	return out
}

type behaviorsBehavior = behaviors.Behavior
