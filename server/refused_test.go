package server_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// grpcTestTimeout bounds each call of these tests.
const grpcTestTimeout = 20 * time.Second

// grpcRigConn is grpcRig's server with the connection too, for calls the
// generated client cannot make.
func grpcRigConn(t *testing.T) (*harness, a2apb.A2AServiceClient, *grpc.ClientConn) {
	t.Helper()
	h := start(t, server.Config{GRPC: true, StepDelay: -1,
		Agents: []server.AgentConfig{{Name: "main", Card: testCard(wire.V10, false)}}})
	conn, err := grpc.NewClient(strings.TrimPrefix(h.url, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return h, a2apb.NewA2AServiceClient(conn), conn
}

// refusedPair returns the request and response entries of the only
// request in the journal, checking they pair up.
func refusedPair(t *testing.T, h *harness, name string) (req, resp server.Entry) {
	t.Helper()
	entries, _ := h.journalQuery("")
	var got []server.Entry
	for _, e := range entries {
		if e.Kind == server.EntryRequest || e.Kind == server.EntryResponse {
			got = append(got, e)
		}
	}
	require.Len(t, got, 2, "%s: one request and its response in %+v", name, entries)
	req, resp = got[0], got[1]
	require.Equal(t, server.EntryRequest, req.Kind, name)
	require.Equal(t, server.EntryResponse, resp.Kind, name)
	require.Equal(t, req.Request, resp.Request, name)
	return req, resp
}

// TestRefusedRequestsAreJournaled: a request the mock refuses before it
// can serve it (an unreadable body, an unknown method or route, a media
// type or version it does not serve, bad parameters, a binding the card
// does not declare) is in the journal with its error, as every served one
// is, and its bytes are in the raw view.
func TestRefusedRequestsAreJournaled(t *testing.T) {
	v10 := map[string]string{"A2A-Version": "1.0"}
	for _, tc := range []struct {
		name         string
		method, path string
		body         string
		hdr          map[string]string
		cfg          server.Config
		wantMethod   string
		wantOp       wire.Op
		wantBinding  wire.Binding
		wantCode     int
		wantDetail   string
	}{
		{name: "JSON-RPC body not JSON", method: "POST", path: "/", body: `{"jsonrpc":"2.0","id":1,"method":`, hdr: v10,
			wantBinding: wire.BindingJSONRPC, wantCode: wire.CodeParseError, wantDetail: "parse error"},
		{name: "JSON-RPC unknown method", method: "POST", path: "/", body: `{"jsonrpc":"2.0","id":1,"method":"message/sendd","params":{}}`, hdr: v10,
			wantMethod: "message/sendd", wantBinding: wire.BindingJSONRPC, wantCode: wire.CodeMethodNotFound, wantDetail: "method not found: message/sendd"},
		{name: "JSON-RPC media type", method: "POST", path: "/", body: `{}`, hdr: map[string]string{"Content-Type": "text/plain"},
			wantBinding: wire.BindingJSONRPC, wantCode: wire.CodeInvalidRequest, wantDetail: "Content-Type"},
		{name: "JSON-RPC version", method: "POST", path: "/", body: string(rpcBody("GetTask", map[string]any{"id": "t1"})), hdr: map[string]string{"A2A-Version": "9.0"},
			wantMethod: "GetTask", wantOp: wire.OpGetTask, wantBinding: wire.BindingJSONRPC, wantCode: wire.CodeVersionNotSupported, wantDetail: `"9.0"`},
		{name: "JSON-RPC bad params", method: "POST", path: "/", body: string(rpcBody("GetTask", map[string]any{"id": 7})), hdr: v10,
			wantMethod: "GetTask", wantOp: wire.OpGetTask, wantBinding: wire.BindingJSONRPC, wantCode: wire.CodeInvalidParams},
		{name: "HTTP+JSON body not JSON", method: "POST", path: "/message:send", body: `{"message":`, hdr: v10,
			wantMethod: "POST /message:send", wantOp: wire.OpSend, wantBinding: wire.BindingREST, wantCode: wire.CodeParseError},
		{name: "HTTP+JSON version", method: "GET", path: "/tasks/t1", hdr: map[string]string{"A2A-Version": "9.0"},
			wantMethod: "GET /tasks/{id}", wantOp: wire.OpGetTask, wantBinding: wire.BindingREST, wantCode: wire.CodeVersionNotSupported},
		{name: "HTTP+JSON method not allowed", method: "DELETE", path: "/rest/tasks/t1:cancel", hdr: v10,
			wantBinding: wire.BindingREST, wantCode: wire.CodeMethodNotFound},
		{name: "no route", method: "POST", path: "/v1/tasks/t1/history", body: `{}`, hdr: v10,
			wantCode: wire.CodeMethodNotFound, wantDetail: "no route POST /v1/tasks/t1/history"},
		{name: "JSON-RPC endpoint GET with a version", method: "GET", path: "/", hdr: v10,
			wantBinding: wire.BindingJSONRPC, wantCode: wire.CodeInvalidRequest, wantDetail: "POST only"},
		{name: "binding the card does not declare", method: "POST", path: "/", body: string(rpcBody("GetTask", map[string]any{"id": "t1"})), hdr: v10,
			cfg:         server.Config{Agents: []server.AgentConfig{{Name: "rest-only", Bindings: []wire.Binding{wire.BindingREST}}}},
			wantBinding: wire.BindingJSONRPC, wantCode: wire.CodeMethodNotFound, wantDetail: "does not serve JSONRPC"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t, tc.cfg)
			var body []byte
			if tc.body != "" {
				body = []byte(tc.body)
			}
			status, _, answer := h.do(tc.method, tc.path, body, tc.hdr)
			require.NotEqual(t, http.StatusInternalServerError, status, "%s", answer)
			req, resp := refusedPair(t, h, tc.name)
			assert.Equal(t, tc.wantMethod, req.Method)
			assert.Equal(t, tc.wantOp, req.Op)
			assert.Equal(t, tc.wantBinding, req.Binding)
			assert.Equal(t, tc.path, req.Path)
			assert.Equal(t, tc.wantCode, resp.ErrorCode, "%s", answer)
			assert.Contains(t, resp.Detail, tc.wantDetail)

			// The raw view holds what the client sent and what it was told.
			code, x, raw := h.wire("?request=" + strconv.FormatInt(req.Request, 10))
			require.Equal(t, http.StatusOK, code, "%s", raw)
			assert.Equal(t, tc.method, x.Method)
			assert.Equal(t, tc.body, x.Body.Text)
			assert.Equal(t, status, x.Status)
			assert.Equal(t, string(answer), x.Response.Text)
		})
	}
}

// TestUnroutedBrowserGetsAreNotJournaled: the GETs a browser or a probe
// sends on its own (a favicon beside the timeline page, the base URL in a
// tab) are answered but leave the journal to the clients under test.
func TestUnroutedBrowserGetsAreNotJournaled(t *testing.T) {
	h := start(t, server.Config{})
	for _, path := range []string{"/favicon.ico", "/", "/rest/nowhere"} {
		status, _, _ := h.do(http.MethodGet, path, nil, nil)
		assert.GreaterOrEqual(t, status, 400, path)
	}
	entries, _ := h.journalQuery("")
	assert.Empty(t, entries)
}

// TestRefusedGRPCCallsAreJournaled: a gRPC call refused before it is
// served (an unknown method, an unsupported version, bad parameters) is
// journaled with its error like any other.
func TestRefusedGRPCCallsAreJournaled(t *testing.T) {
	for _, tc := range []struct {
		name       string
		call       func(ctx context.Context, c a2apb.A2AServiceClient, conn grpc.ClientConnInterface) error
		version    string
		wantGRPC   codes.Code
		wantMethod string
		wantOp     wire.Op
		wantCode   int
	}{
		{name: "unknown method", version: "1.0", wantGRPC: codes.Unimplemented, wantCode: wire.CodeMethodNotFound,
			call: func(ctx context.Context, _ a2apb.A2AServiceClient, conn grpc.ClientConnInterface) error {
				return conn.Invoke(ctx, "/lf.a2a.v1.A2AService/SendMessagee", &a2apb.SendMessageRequest{}, &a2apb.SendMessageResponse{})
			}},
		{name: "version", version: "9.0", wantGRPC: codes.FailedPrecondition, wantMethod: "GetTask", wantOp: wire.OpGetTask, wantCode: wire.CodeVersionNotSupported,
			call: func(ctx context.Context, c a2apb.A2AServiceClient, _ grpc.ClientConnInterface) error {
				_, err := c.GetTask(ctx, &a2apb.GetTaskRequest{Id: "t1"})
				return err
			}},
		{name: "bad params", version: "1.0", wantGRPC: codes.InvalidArgument, wantMethod: "GetTask", wantOp: wire.OpGetTask, wantCode: wire.CodeInvalidParams,
			call: func(ctx context.Context, c a2apb.A2AServiceClient, _ grpc.ClientConnInterface) error {
				_, err := c.GetTask(ctx, &a2apb.GetTaskRequest{})
				return err
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, c, conn := grpcRigConn(t)
			ctx, cancel := context.WithTimeout(context.Background(), grpcTestTimeout)
			defer cancel()
			err := tc.call(metadata.AppendToOutgoingContext(ctx, "a2a-version", tc.version), c, conn)
			require.Error(t, err)
			assert.Equal(t, tc.wantGRPC, status.Code(err), "%v", err)
			req, resp := refusedPair(t, h, tc.name)
			assert.Equal(t, wire.BindingGRPC, req.Binding)
			assert.Equal(t, tc.wantMethod, req.Method)
			assert.Equal(t, tc.wantOp, req.Op)
			assert.Equal(t, tc.wantCode, resp.ErrorCode, resp.Detail)
			assert.True(t, strings.HasPrefix(req.Path, "/lf.a2a.v1.A2AService/"), req.Path)
		})
	}
}

// TestRefusedOpenStreamIsNotWaitedFor: a gRPC call refused while its
// client is still sending (a stream it never half-closes) is answered at
// once: the journal does not wait for a body of no declared length.
func TestRefusedOpenStreamIsNotWaitedFor(t *testing.T) {
	h, _, conn := grpcRigConn(t)
	ctx, cancel := context.WithTimeout(metadata.AppendToOutgoingContext(context.Background(), "a2a-version", "1.0"), grpcTestTimeout)
	defer cancel()
	desc := &grpc.StreamDesc{StreamName: "Chat", ClientStreams: true, ServerStreams: true}
	st, err := conn.NewStream(ctx, desc, "/lf.a2a.v1.A2AService/Chat")
	require.NoError(t, err)
	// The refusal may come before the message is sent: SendMsg then
	// returns io.EOF, and the status is RecvMsg's (grpc.ClientStream).
	if err := st.SendMsg(&a2apb.SendMessageRequest{}); err != nil {
		require.ErrorIs(t, err, io.EOF)
	}
	// Were the refusal to wait for the client to finish, the call would end
	// at its deadline instead.
	err = st.RecvMsg(&a2apb.StreamResponse{})
	assert.Equal(t, codes.Unimplemented, status.Code(err), "%v", err)
	req, resp := refusedPair(t, h, "open stream")
	assert.Equal(t, "/lf.a2a.v1.A2AService/Chat", req.Path)
	assert.Equal(t, wire.CodeMethodNotFound, resp.ErrorCode)
}
