package transport

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/textproto"
	"slices"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/wire"
)

var restErrorDialectSpec = core.Spec{
	Name: "rest-error-dialect",
	Doc: `Reproduces the HTTP+JSON error bodies the field sends instead of v1.0's
google.rpc.Status ({"error":{"code","status","message","details":[ErrorInfo]}},
what the honest mock sends). mode=problem answers RFC 9457
application/problem+json (type, title, status, detail, and the A2A reason as
an extension member), as the spec's own §6.4 example and some SDKs do;
mode=string a bare JSON string holding the message; mode=no-details the
Status without its details (no ErrorInfo, so no A2A reason); mode=
reason-mismatch an ErrorInfo.reason that disagrees with the HTTP status
(task-not-found answers say UNSUPPORTED_OPERATION, every other error says
TASK_NOT_FOUND). The HTTP status is always kept. HTTP+JSON binding only,
v1.0's and v0.3's (whose honest body also carries the v0.3 error name as
type and the message beside the Status; each mode's body replaces it
whole): JSON-RPC errors are shaped by error-data-shape. Tests that a client
still reports an error with the right meaning, at least from the HTTP
status, rather than a decode failure or, worse, success. Evidence:
a2a-java#695, #719 and #730, A2A#1748.`,
	New: func() core.Behavior { return &RESTErrorDialect{Mode: "problem"} },
}

// RESTErrorDialect rewrites HTTP+JSON error bodies.
type RESTErrorDialect struct {
	Mode string `param:"mode" doc:"problem, string, no-details or reason-mismatch"`
}

// Validate implements Validator.
func (b *RESTErrorDialect) Validate() error {
	if !slices.Contains([]string{"problem", "string", "no-details", "reason-mismatch"}, b.Mode) {
		return fmt.Errorf("mode must be problem, string, no-details or reason-mismatch, not %q", b.Mode)
	}
	return nil
}

// Apply implements Behavior.
func (b *RESTErrorDialect) Apply(x *core.Exchange) {
	if x.Binding != wire.BindingREST {
		return
	}
	x.OnTransport(func(t core.Transport) {
		t.Rewrite(func(status int, h textproto.MIMEHeader, body []byte) (int, []byte) {
			if status < 400 {
				return status, body
			}
			return status, b.rewrite(status, h, body)
		}, nil)
	})
}

type restStatus struct {
	Code    int               `json:"code"`
	Status  string            `json:"status"`
	Message string            `json:"message"`
	Details []json.RawMessage `json:"details,omitempty"`
}

// rewrite turns a google.rpc.Status error body into the configured dialect.
func (b *RESTErrorDialect) rewrite(status int, h textproto.MIMEHeader, body []byte) []byte {
	var env struct {
		Error *restStatus `json:"error"`
	}
	if json.Unmarshal(body, &env) != nil || env.Error == nil {
		return body
	}
	e := env.Error
	reason := ""
	var info map[string]any
	if len(e.Details) > 0 && json.Unmarshal(e.Details[0], &info) == nil {
		reason, _ = info["reason"].(string)
	}
	var out any
	switch b.Mode {
	case "problem":
		h.Set("Content-Type", "application/problem+json")
		p := map[string]any{"type": "about:blank", "title": http.StatusText(status), "status": status, "detail": e.Message}
		if reason != "" {
			p["type"] = "https://a2a-protocol.org/errors/" + reason
			p["reason"] = reason
		}
		out = p
	case "string":
		out = e.Message
	case "no-details":
		e.Details = nil
		out = env
	case "reason-mismatch":
		wrong := "TASK_NOT_FOUND"
		if reason == wrong {
			wrong = "UNSUPPORTED_OPERATION"
		}
		if info == nil {
			info = map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "domain": "a2a-protocol.org"}
		}
		info["reason"] = wrong
		d, _ := json.Marshal(info)
		e.Details = []json.RawMessage{d}
		out = env
	}
	res, err := json.Marshal(out)
	if err != nil {
		return body
	}
	return res
}
