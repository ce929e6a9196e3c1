package push

import (
	"encoding/json"
	"fmt"
	"net/textproto"
	"slices"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/wire"
)

var pushAuthDialectSpec = core.Spec{
	Name: "push-auth-dialect",
	Doc: `Reproduces the ways senders present a push notification that receivers
disagree on. token=: where the notification token goes: v0 (only
X-A2A-Notification-Token, the v0.3 docs' header), v10 (only
A2A-Notification-Token), authorization (only "Authorization: Bearer
<token>"), none (nowhere), keep (as the dialect does: v1.0 sends
A2A-Notification-Token, v0.x X-A2A-Notification-Token). content-type=:
keep, none (no Content-Type at all), json (application/json) or a2a
(application/a2a+json). body=: keep, or task (a bare Task, {id, contextId,
status} or {id, contextId, artifacts}, instead of v1.0's StreamResponse
wrapper). Applies to the pushes of the tasks the request creates, in every
dialect (the v1.0 wrapper only exists in v1.0). Tests that a receiver
accepts (or clearly refuses) each presentation it may meet, checks the
token wherever it arrives, and does not silently drop a notification it
cannot parse. Evidence: A2A#1793, a2a-java#810 and #486, a2a-python#585,
a2a-js#239.`,
	New: func() core.Behavior { return &PushAuthDialect{Token: "v0", ContentType: "keep", Body: "keep"} },
}

// PushAuthDialect changes the headers and body shape of push notifications.
type PushAuthDialect struct {
	Token       string `param:"token" doc:"keep, v0, v10, authorization or none"`
	ContentType string `param:"content-type" doc:"keep, none, json or a2a"`
	Body        string `param:"body" doc:"keep or task (a bare Task instead of a StreamResponse)"`
}

// Validate implements Validator.
func (b *PushAuthDialect) Validate() error {
	if !slices.Contains([]string{"keep", "v0", "v10", "authorization", "none"}, b.Token) {
		return fmt.Errorf("token must be keep, v0, v10, authorization or none, not %q", b.Token)
	}
	if !slices.Contains([]string{"keep", "none", "json", "a2a"}, b.ContentType) {
		return fmt.Errorf("content-type must be keep, none, json or a2a, not %q", b.ContentType)
	}
	if b.Body != "keep" && b.Body != "task" {
		return fmt.Errorf("body must be keep or task, not %q", b.Body)
	}
	return nil
}

const (
	pushTokenV10 = "A2A-Notification-Token"
	pushTokenV0  = "X-A2A-Notification-Token"
)

// Apply implements Behavior.
func (b *PushAuthDialect) Apply(x *core.Exchange) {
	rewrite := func(h textproto.MIMEHeader, body []byte) []byte {
		tok := h.Get(pushTokenV10)
		if tok == "" {
			tok = h.Get(pushTokenV0)
		}
		if b.Token != "keep" {
			h.Del(pushTokenV10)
			h.Del(pushTokenV0)
			if tok != "" {
				switch b.Token {
				case "v0":
					h.Set(pushTokenV0, tok)
				case "v10":
					h.Set(pushTokenV10, tok)
				case "authorization":
					h.Set("Authorization", "Bearer "+tok)
				}
			}
		}
		switch b.ContentType {
		case "none":
			h.Del("Content-Type")
		case "json":
			h.Set("Content-Type", "application/json")
		case "a2a":
			h.Set("Content-Type", "application/a2a+json")
		}
		if b.Body == "task" {
			body = bareTask(body)
		}
		return body
	}
	x.OnPush(func(ev wire.Event, deliver core.PushDeliver) { deliver(ev, core.PushOptions{Rewrite: rewrite}) })
}

// bareTask turns a v1.0 StreamResponse into a bare Task-shaped object; any
// other body is returned as it is.
func bareTask(body []byte) []byte {
	var sr map[string]json.RawMessage
	if json.Unmarshal(body, &sr) != nil || len(sr) != 1 {
		return body
	}
	var ev struct {
		TaskID    string          `json:"taskId"`
		ContextID string          `json:"contextId"`
		Status    json.RawMessage `json:"status"`
		Artifact  json.RawMessage `json:"artifact"`
	}
	for k, v := range sr {
		switch k {
		case "task":
			return v
		case "statusUpdate", "artifactUpdate":
			if json.Unmarshal(v, &ev) != nil {
				return body
			}
		default:
			return body
		}
	}
	t := map[string]any{"id": ev.TaskID, "contextId": ev.ContextID}
	if ev.Status != nil {
		t["status"] = ev.Status
	}
	if ev.Artifact != nil {
		t["artifacts"] = []json.RawMessage{ev.Artifact}
	}
	out, err := json.Marshal(t)
	if err != nil {
		return body
	}
	return out
}
