package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/internal/schemacheck"
	"github.com/a2amock/a2amock/wire"
)

// dialectCase is one way of talking to an agent.
type dialectCase struct {
	name string
	d    wire.Dialect // the wire dialect of the requests
	card wire.Dialect // the dialect of the agent's card
	rest bool         // v1.0 HTTP+JSON instead of JSON-RPC
}

var dialectCases = []dialectCase{
	{name: "v1.0 JSON-RPC", d: wire.V10, card: wire.V10},
	{name: "v1.0 HTTP+JSON", d: wire.V10, card: wire.V10, rest: true},
	{name: "v0.3", d: wire.V03, card: wire.V03},
	{name: "v0.2", d: wire.V02, card: wire.V02},
	{name: "v0.1", d: wire.V01, card: wire.V01},
}

// dclient speaks one dialect to one agent and validates every payload it
// receives against the dialect's schema.
type dclient struct {
	t    testing.TB
	h    *harness
	c    dialectCase
	base string // the agent's base path, "" for the root agent
}

func newClient(t testing.TB, h *harness, c dialectCase) *dclient {
	return &dclient{t: t, h: h, c: c}
}

// sendOpts describes one message.
type sendOpts struct {
	text          string
	taskID        string
	contextID     string
	skill         string
	historyLength *int
	immediate     bool
	messageID     string // empty picks a fresh one
}

var msgSeq atomic.Int64

func intp(n int) *int { return &n }

// params renders the send params of the dialect.
func (c *dclient) sendParams(o sendOpts) map[string]any {
	if o.text == "" {
		o.text = "hello"
	}
	md := map[string]any{}
	if o.skill != "" {
		md["skillId"] = o.skill
	}
	mid := o.messageID
	if mid == "" {
		mid = fmt.Sprintf("msg-%d", msgSeq.Add(1))
	}
	switch c.c.d {
	case wire.V10:
		m := map[string]any{"messageId": mid, "role": "ROLE_USER", "parts": []any{map[string]any{"text": o.text}}}
		if o.taskID != "" {
			m["taskId"] = o.taskID
		}
		if o.contextID != "" {
			m["contextId"] = o.contextID
		}
		if len(md) > 0 {
			m["metadata"] = md
		}
		p := map[string]any{"message": m}
		cfg := map[string]any{}
		if o.historyLength != nil {
			cfg["historyLength"] = *o.historyLength
		}
		if o.immediate {
			cfg["returnImmediately"] = true
		}
		if len(cfg) > 0 {
			p["configuration"] = cfg
		}
		return p
	case wire.V03, wire.V02:
		m := map[string]any{"kind": "message", "messageId": mid, "role": "user", "parts": []any{map[string]any{"kind": "text", "text": o.text}}}
		if o.taskID != "" {
			m["taskId"] = o.taskID
		}
		if o.contextID != "" {
			m["contextId"] = o.contextID
		}
		if len(md) > 0 {
			m["metadata"] = md
		}
		p := map[string]any{"message": m}
		cfg := map[string]any{}
		if o.historyLength != nil {
			cfg["historyLength"] = *o.historyLength
		}
		if o.immediate {
			cfg["blocking"] = false
		}
		if len(cfg) > 0 {
			p["configuration"] = cfg
		}
		return p
	case wire.V01:
		id := o.taskID
		if id == "" {
			id = fmt.Sprintf("v01-task-%d", msgSeq.Add(1))
		}
		m := map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "text": o.text}}}
		if len(md) > 0 {
			m["metadata"] = md
		}
		p := map[string]any{"id": id, "message": m}
		if o.contextID != "" {
			p["sessionId"] = o.contextID
		}
		if o.historyLength != nil {
			p["historyLength"] = *o.historyLength
		}
		return p
	}
	c.t.Fatalf("dialect %s", c.c.d)
	return nil
}

var methodNames = map[wire.Dialect]map[wire.Op]string{
	wire.V10: {wire.OpSend: "SendMessage", wire.OpStream: "SendStreamingMessage", wire.OpGetTask: "GetTask", wire.OpCancelTask: "CancelTask",
		wire.OpSubscribe: "SubscribeToTask", wire.OpListTasks: "ListTasks", wire.OpSetPushConfig: "CreateTaskPushNotificationConfig",
		wire.OpGetPushConfig: "GetTaskPushNotificationConfig", wire.OpListPushConfigs: "ListTaskPushNotificationConfigs",
		wire.OpDeletePush: "DeleteTaskPushNotificationConfig", wire.OpExtendedCard: "GetExtendedAgentCard"},
	wire.V03: {wire.OpSend: "message/send", wire.OpStream: "message/stream", wire.OpGetTask: "tasks/get", wire.OpCancelTask: "tasks/cancel",
		wire.OpSubscribe: "tasks/resubscribe", wire.OpSetPushConfig: "tasks/pushNotificationConfig/set",
		wire.OpGetPushConfig: "tasks/pushNotificationConfig/get", wire.OpListPushConfigs: "tasks/pushNotificationConfig/list",
		wire.OpDeletePush: "tasks/pushNotificationConfig/delete", wire.OpExtendedCard: "agent/getAuthenticatedExtendedCard"},
	wire.V01: {wire.OpSend: "tasks/send", wire.OpStream: "tasks/sendSubscribe", wire.OpGetTask: "tasks/get", wire.OpCancelTask: "tasks/cancel",
		wire.OpSubscribe: "tasks/resubscribe", wire.OpSetPushConfig: "tasks/pushNotification/set", wire.OpGetPushConfig: "tasks/pushNotification/get"},
}

func (c *dclient) method(op wire.Op) string {
	d := c.c.d
	if d == wire.V02 {
		d = wire.V03
	}
	m, ok := methodNames[d][op]
	require.True(c.t, ok, "no %s method in %s", op, d)
	return m
}

var reasonCodes = func() map[string]int {
	m := map[string]int{}
	for code := -32700; code <= -31000; code++ {
		if r := wire.Reason(code); r != "" {
			m[r] = code
		}
	}
	return m
}()

// restErr turns a google.rpc.Status body into the JSON-RPC code it stands
// for, using the ErrorInfo reason when there is one.
func restErr(t testing.TB, status int, body []byte) *rpcError {
	t.Helper()
	requireRESTStatus(t, status, body)
	var r struct {
		Error struct {
			Status  string
			Message string
			Details []struct{ Reason string }
		}
	}
	require.NoError(t, json.Unmarshal(body, &r))
	e := &rpcError{Message: r.Error.Message}
	for _, d := range r.Error.Details {
		if code, ok := reasonCodes[d.Reason]; ok {
			e.Code = code
		}
	}
	if e.Code == 0 && r.Error.Status == "INVALID_ARGUMENT" {
		e.Code = wire.CodeInvalidParams
	}
	require.NotZero(t, e.Code, "REST error with no known reason: %s", body)
	return e
}

// call performs a unary op with JSON-RPC params and returns the validated
// result (the bare result member) or the error.
func (c *dclient) call(op wire.Op, params map[string]any) (json.RawMessage, *rpcError) {
	c.t.Helper()
	if c.c.rest {
		return c.restCall(op, params)
	}
	r, raw := c.h.rpc(c.base+"/", c.method(op), params, c.hdr())
	requireValidRPC(c.t, c.c.d, op, raw)
	return r.Result, r.Error
}

func (c *dclient) hdr() map[string]string {
	if c.c.d == wire.V10 {
		return v1
	}
	return nil
}

func (c *dclient) restCall(op wire.Op, params map[string]any) (json.RawMessage, *rpcError) {
	c.t.Helper()
	base := c.base + "/rest"
	var status int
	var body []byte
	switch op {
	case wire.OpSend:
		b, _ := json.Marshal(params)
		status, _, body = c.h.post(base+"/message:send", b, v1)
	case wire.OpGetTask:
		q := ""
		if hl, ok := params["historyLength"]; ok {
			q = fmt.Sprintf("?historyLength=%v", hl)
		}
		status, _, body = c.h.do(http.MethodGet, base+"/tasks/"+params["id"].(string)+q, nil, v1)
	case wire.OpCancelTask:
		status, _, body = c.h.post(base+"/tasks/"+params["id"].(string)+":cancel", []byte(`{}`), v1)
	default:
		c.t.Fatalf("restCall %s", op)
	}
	if status != http.StatusOK {
		return nil, restErr(c.t, status, body)
	}
	schemacheck.Require(c.t, wire.V10, v10ResultDef[op], body)
	return body, nil
}

// task reads the task of a send/get/cancel result.
func (c *dclient) task(op wire.Op, res json.RawMessage) wireTask {
	c.t.Helper()
	if c.c.d == wire.V10 && op == wire.OpSend {
		var w struct{ Task json.RawMessage }
		require.NoError(c.t, json.Unmarshal(res, &w))
		require.NotNil(c.t, w.Task, "SendMessageResponse without task: %s", res)
		res = w.Task
	}
	tk := parseTask(c.t, c.c.d, res)
	require.NotEmpty(c.t, tk.ID)
	require.NotEmpty(c.t, tk.Timestamp, "every state has a timestamp: %s", res)
	switch c.c.d {
	case wire.V10:
		require.Empty(c.t, tk.Kind, "v1.0 tasks have no kind")
	case wire.V03, wire.V02:
		require.Equal(c.t, "task", tk.Kind)
	}
	return tk
}

func (c *dclient) send(o sendOpts) (wireTask, *rpcError) {
	c.t.Helper()
	res, e := c.call(wire.OpSend, c.sendParams(o))
	if e != nil {
		return wireTask{}, e
	}
	return c.task(wire.OpSend, res), nil
}

func (c *dclient) mustSend(o sendOpts) wireTask {
	c.t.Helper()
	tk, e := c.send(o)
	require.Nil(c.t, e, "send failed: %+v", e)
	return tk
}

func (c *dclient) get(id string, hl *int) (wireTask, *rpcError) {
	c.t.Helper()
	p := map[string]any{"id": id}
	if hl != nil {
		p["historyLength"] = *hl
	}
	res, e := c.call(wire.OpGetTask, p)
	if e != nil {
		return wireTask{}, e
	}
	return c.task(wire.OpGetTask, res), nil
}

func (c *dclient) cancel(id string) (wireTask, *rpcError) {
	c.t.Helper()
	res, e := c.call(wire.OpCancelTask, map[string]any{"id": id})
	if e != nil {
		return wireTask{}, e
	}
	return c.task(wire.OpCancelTask, res), nil
}

// streamOp opens a stream (op OpStream or OpSubscribe) and returns its
// validated events, or the error the stream was refused with.
func (c *dclient) streamOp(op wire.Op, params map[string]any) ([]wireEvent, *rpcError) {
	c.t.Helper()
	var frames [][]byte
	if c.c.rest {
		b, _ := json.Marshal(params)
		path := c.base + "/rest/message:stream"
		if op == wire.OpSubscribe {
			path = c.base + "/rest/tasks/" + params["id"].(string) + ":subscribe"
			b = []byte(`{}`)
		}
		status, ct, body, fr := c.h.openStream(path, b, v1)
		if status != http.StatusOK || ct != "text/event-stream" {
			return nil, restErr(c.t, status, body)
		}
		frames = fr
		var evs []wireEvent
		for _, f := range frames {
			schemacheck.Require(c.t, wire.V10, "StreamResponse", f)
			evs = append(evs, parseEvent(c.t, wire.V10, f))
		}
		return evs, nil
	}
	frames = c.h.streamFrames(c.base+"/", rpcBody(c.method(op), params), c.hdr())
	var evs []wireEvent
	for i, f := range frames {
		requireValidRPC(c.t, c.c.d, op, f)
		var r rpcResponse
		require.NoError(c.t, json.Unmarshal(f, &r))
		if r.Error != nil {
			require.Len(c.t, frames, i+1, "an error ends the stream")
			if len(evs) == 0 {
				return nil, r.Error
			}
			c.t.Fatalf("error inside the stream after %d events: %s", len(evs), f)
		}
		evs = append(evs, parseEvent(c.t, c.c.d, r.Result))
	}
	return evs, nil
}

func (c *dclient) stream(o sendOpts) ([]wireEvent, *rpcError) {
	c.t.Helper()
	return c.streamOp(wire.OpStream, c.sendParams(o))
}

func (c *dclient) subscribe(id string) ([]wireEvent, *rpcError) {
	c.t.Helper()
	return c.streamOp(wire.OpSubscribe, map[string]any{"id": id})
}

// states lists the states of the events in order.
func states(evs []wireEvent) []wire.TaskState {
	var out []wire.TaskState
	for _, e := range evs {
		if e.State != "" {
			out = append(out, e.State)
		}
	}
	return out
}

func kinds(evs []wireEvent) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Kind)
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }
