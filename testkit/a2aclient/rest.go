package a2aclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strings"

	"github.com/a2amock/a2amock/testkit/internal/excerpt"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// The v1.0 HTTP+JSON binding (spec §11): the interface URL is a base, and
// the operations are POST {base}/message:send, POST {base}/message:stream
// (server-sent events whose data is a StreamResponse, without a JSON-RPC
// envelope), GET {base}/tasks/{id} and POST {base}/tasks/{id}:cancel.
// Bodies are the same ProtoJSON shapes as the JSON-RPC params and
// results; errors are google.rpc.Status objects,
// {"error":{"code":404,"status":"NOT_FOUND","message":"…","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND"}]}}.

// restReasons maps the ErrorInfo reasons of v1.0 §6.1 to the A2A error
// codes RPCError carries.
var restReasons = map[string]int{
	"TASK_NOT_FOUND":                     wire.CodeTaskNotFound,
	"TASK_NOT_CANCELABLE":                wire.CodeTaskNotCancelable,
	"PUSH_NOTIFICATION_NOT_SUPPORTED":    wire.CodePushNotSupported,
	"UNSUPPORTED_OPERATION":              wire.CodeUnsupportedOperation,
	"CONTENT_TYPE_NOT_SUPPORTED":         wire.CodeContentTypeNotSupported,
	"INVALID_AGENT_RESPONSE":             wire.CodeInvalidAgentResponse,
	"EXTENDED_AGENT_CARD_NOT_CONFIGURED": wire.CodeExtendedCardNotConfigured,
	"EXTENSION_SUPPORT_REQUIRED":         wire.CodeExtensionSupportRequired,
	"VERSION_NOT_SUPPORTED":              wire.CodeVersionNotSupported,
	"UNAUTHENTICATED":                    wire.CodeUnauthenticated,
	"PERMISSION_DENIED":                  wire.CodeUnauthorized,
}

type restStatus struct {
	Error *struct {
		Code    int    `json:"code"`
		Status  string `json:"status"`
		Message string `json:"message"`
		Details []struct {
			Type   string `json:"@type"`
			Reason string `json:"reason"`
		} `json:"details"`
	} `json:"error"`
}

// restError reads an HTTP+JSON error answer as an *RPCError: the A2A code
// its ErrorInfo reason names or, without one, the code its status implies
// (404, 405 and 501 without a reason are a route the agent lacks, which
// errors.Is reports as reconcile.ErrNotSupported). It returns nil for a
// body that is no error.
func restError(b []byte, status int) *RPCError {
	var st restStatus
	if json.Unmarshal(b, &st) != nil || st.Error == nil {
		if status < 400 {
			return nil
		}
		return &RPCError{Code: restStatusCode(status, ""), Message: fmt.Sprintf("HTTP %d: %s", status, excerpt.Of(b)), HTTPStatus: status}
	}
	e := &RPCError{Message: st.Error.Message, HTTPStatus: status}
	for _, d := range st.Error.Details {
		if code, ok := restReasons[d.Reason]; ok && strings.HasSuffix(d.Type, "google.rpc.ErrorInfo") {
			e.Code, e.Reason = code, d.Reason
			break
		}
	}
	if e.Code == 0 {
		e.Code = restStatusCode(status, st.Error.Status)
	}
	if raw, err := json.Marshal(st.Error.Details); err == nil && len(st.Error.Details) > 0 {
		e.Data = raw
	}
	return e
}

func restStatusCode(status int, name string) int {
	switch {
	case name == "UNIMPLEMENTED" || status == http.StatusNotImplemented:
		return wire.CodeUnsupportedOperation
	case status == http.StatusNotFound || status == http.StatusMethodNotAllowed:
		return wire.CodeMethodNotFound
	case status == http.StatusUnauthorized:
		return wire.CodeUnauthenticated
	case status == http.StatusForbidden:
		return wire.CodeUnauthorized
	case status == http.StatusBadRequest:
		return wire.CodeInvalidParams
	}
	return wire.CodeInternal
}

// restDo makes one unary HTTP+JSON call and returns the body of a 2xx
// answer.
func (c *Client) restDo(ctx context.Context, method, path, label string, body any) (json.RawMessage, error) {
	req, err := c.restRequest(ctx, method, path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/a2a+json, application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("testkit: %s: %w", label, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("testkit: %s: read reply: %w", label, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, restError(b, resp.StatusCode)
	}
	if !json.Valid(b) {
		return nil, fmt.Errorf("testkit: %s: reply is not JSON (HTTP %d): %s", label, resp.StatusCode, excerpt.Of(b))
	}
	return b, nil
}

func (c *Client) restRequest(ctx context.Context, method, path string, body any) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("testkit: encode request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(c.url, "/")+path, rd)
	if err != nil {
		return nil, fmt.Errorf("testkit: request: %w", err)
	}
	for k, vs := range c.header {
		req.Header[k] = append([]string(nil), vs...)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/a2a+json")
	}
	req.Header.Set("A2A-Version", string(wire.V10))
	return req, nil
}

func (c *Client) restSend(ctx context.Context, msg *wire.Message, opts reconcile.SendOptions) (*wire.Task, *wire.Message, error) {
	raw, err := c.restDo(ctx, http.MethodPost, "/message:send", "SendMessage", c.sendParams(msg, opts))
	if err != nil {
		return nil, nil, err
	}
	ev, err := c.decodeResult(raw)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case ev.Task != nil:
		c.record(reconcile.SourceSendResponse, ev)
		return ev.Task, nil, nil
	case ev.Message != nil:
		return nil, ev.Message, nil
	}
	return nil, nil, fmt.Errorf("testkit: SendMessage answered neither a task nor a message: %s", excerpt.Of(raw))
}

func (c *Client) restTaskCall(ctx context.Context, method, id string, src reconcile.Source) (*wire.Task, error) {
	path, verb := "/tasks/"+url.PathEscape(id), http.MethodGet
	if src == reconcile.SourceCancel {
		path, verb = path+":cancel", http.MethodPost
	}
	var body any
	if verb == http.MethodPost {
		body = map[string]any{}
	}
	raw, err := c.restDo(ctx, verb, path, method, body)
	if err != nil {
		return nil, err
	}
	var w wTask
	if err := json.Unmarshal(raw, &w); err != nil || w.ID == "" {
		return nil, fmt.Errorf("testkit: %s result is not a task: %s", method, excerpt.Of(raw))
	}
	t := w.canonical()
	c.record(src, wire.Event{Task: t})
	return t, nil
}

func (c *Client) restStream(ctx context.Context, msg *wire.Message) (iter.Seq2[wire.Event, error], error) {
	req, err := c.restRequest(ctx, http.MethodPost, "/message:stream", c.sendParams(msg, reconcile.SendOptions{}))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	return c.openStream(ctx, req, "SendStreamingMessage", func(data []byte, status int) (json.RawMessage, error) {
		if e := restError(data, status); e != nil {
			return nil, e
		}
		if !json.Valid(data) {
			return nil, errors.New("testkit: event data is not JSON: " + excerpt.Of(data))
		}
		return data, nil
	})
}
