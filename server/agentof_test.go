package server_test

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/internal/a2apb03"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// TestAgentOfNamesTheAgentJournaled: for calls at the root and below every
// agent's path, AgentOf names the agent the server then journals the call
// as (conform records exchanges by it before they are journaled), and
// leaves the call's body for the server to read whole. A v0.3 gRPC call
// names no agent: it reaches the agent of its path when that agent's card
// is v0.3, else the one v0.3 agent, else it is refused as its path's
// agent. A v1.0 gRPC call reaches the agent its tenant names, wherever it
// is posted; without gRPC, either is its path's agent.
func TestAgentOfNamesTheAgentJournaled(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		dialects []wire.Dialect
		grpc     bool
		// want is AgentOf of a v0.3 call at the root and below a0, a1, a2.
		want [4]string
	}{
		{"root is v0.3", []wire.Dialect{wire.V03, wire.V03, wire.V10}, true, [4]string{"a0", "a0", "a1", "a2"}},
		{"one v0.3 below a v1.0 root", []wire.Dialect{wire.V10, wire.V10, wire.V03}, true, [4]string{"a2", "a2", "a2", "a2"}},
		{"two v0.3 below a v1.0 root", []wire.Dialect{wire.V10, wire.V03, wire.V03}, true, [4]string{"a0", "a0", "a1", "a2"}},
		{"no v0.3 agent", []wire.Dialect{wire.V10, wire.V10, wire.V10}, true, [4]string{"a0", "a0", "a1", "a2"}},
		{"gRPC off", []wire.Dialect{wire.V10, wire.V10, wire.V03}, false, [4]string{"a0", "a0", "a1", "a2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var agents []server.AgentConfig
			for i, d := range tc.dialects {
				agents = append(agents, server.AgentConfig{Name: fmt.Sprintf("a%d", i), Card: testCard(d, false)})
			}
			srv, err := server.New(server.Config{Agents: agents, GRPC: tc.grpc, StepDelay: -1})
			require.NoError(t, err)
			defer func() { require.NoError(t, srv.Close()) }()
			v03 := grpcCall(t, &a2apb03.SendMessageRequest{
				Request: &a2apb03.Message{MessageId: "m1", Role: a2apb03.Role_ROLE_USER, Content: []*a2apb03.Part{{Part: &a2apb03.Part_Text{Text: "hi"}}}}})
			v10 := grpcCall(t, &a2apb.GetTaskRequest{Id: "nope"})
			toA1 := grpcCall(t, &a2apb.GetTaskRequest{Tenant: "a1", Id: "nope"})
			for i, base := range []string{"", "/agents/a0", "/agents/a1", "/agents/a2"} {
				path := base + a2apb03.ServicePath + "SendMessage"
				got, journaled := agentOfAndJournaled(t, srv, path, v03)
				assert.Equal(t, tc.want[i], got, "AgentOf(%s)", path)
				assert.Equal(t, got, journaled, "the agent %s is journaled as", path)
				path = base + a2apb.ServicePath + "GetTask"
				want, _ := strings.CutPrefix(base, "/agents/")
				if base == "" {
					want = "a0"
				}
				got, journaled = agentOfAndJournaled(t, srv, path, v10)
				assert.Equal(t, want, got, "AgentOf(%s): a v1.0 call without a tenant is its path's", path)
				assert.Equal(t, want, journaled, "the agent %s is journaled as", path)
				wantTenant := "a1"
				if !tc.grpc {
					wantTenant = want
				}
				got, journaled = agentOfAndJournaled(t, srv, path, toA1)
				assert.Equal(t, wantTenant, got, "AgentOf(%s): a v1.0 call with tenant a1", path)
				assert.Equal(t, wantTenant, journaled, "the agent %s with tenant a1 is journaled as", path)
				path = base + "/.well-known/agent-card.json"
				got, journaled = agentOfAndJournaled(t, srv, path, nil)
				assert.Equal(t, want, got, "AgentOf(%s)", path)
				assert.Equal(t, want, journaled, "the agent %s is journaled as", path)
			}
			got := srv.AgentOf(httptest.NewRequest(http.MethodGet, "/agents/nobody"+a2apb03.ServicePath+"SendMessage", nil))
			assert.Equal(t, "nobody", got)
		})
	}
}

// grpcCall is the body of a gRPC call of msg: one length-prefixed message.
func grpcCall(t *testing.T, msg proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(msg)
	require.NoError(t, err)
	return append(binary.BigEndian.AppendUint32([]byte{0}, uint32(len(b))), b...)
}

// agentOfAndJournaled makes a gRPC call with body (or, when body is nil,
// a GET) to path and returns the agent AgentOf names for it and then,
// serving the same request on srv's handler, the agent of the first entry
// the server journals.
func agentOfAndJournaled(t *testing.T, srv *server.Server, path string, body []byte) (named, journaled string) {
	t.Helper()
	srv.Reset()
	var r *http.Request
	if body == nil {
		r = httptest.NewRequest(http.MethodGet, path, nil)
	} else {
		r = httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
		r.ProtoMajor, r.ProtoMinor, r.Proto = 2, 0, "HTTP/2.0"
		r.Header.Set("Content-Type", "application/grpc")
	}
	named = srv.AgentOf(r)
	srv.Handler().ServeHTTP(httptest.NewRecorder(), r)
	entries := srv.Journal().Entries()
	require.NotEmpty(t, entries, "%s journaled nothing", path)
	return named, entries[0].Agent
}

// TestGRPCCallIsTheCallJournaled: GRPCCall reads a gRPC call's method and
// agent as the server journals them, at the root and below every agent's
// path alike (conform records them by it), and the tenant its message
// carries as the server routes it: a v1.0 call's tenant, and none for a
// v0.3 call, whose service's requests have none, though its message read
// with v1.0's would name one (v0.3's GetTaskRequest name is the field
// v1.0's tenant has). A method no service has is journaled with none. A
// request the server serves as no gRPC call (gRPC off, a GET, an agent not
// hosted) is no call to GRPCCall either.
func TestGRPCCallIsTheCallJournaled(t *testing.T) {
	t.Parallel()
	srv, err := server.New(server.Config{Agents: []server.AgentConfig{{Name: "a0"}, {Name: "a1"}}, GRPC: true, StepDelay: -1})
	require.NoError(t, err)
	defer func() { require.NoError(t, srv.Close()) }()
	v03 := grpcCall(t, &a2apb03.GetTaskRequest{Name: "a1"})
	v10 := grpcCall(t, &a2apb.GetTaskRequest{Id: "nope"})
	toA1 := grpcCall(t, &a2apb.GetTaskRequest{Tenant: "a1", Id: "nope"})
	for _, base := range []string{"", "/agents/a0", "/agents/a1"} {
		pathAgent := strings.TrimPrefix(base, "/agents/")
		if base == "" {
			pathAgent = "a0"
		}
		for _, c := range []struct {
			path, want   string
			body         []byte
			tenant, with string // with is the agent when the call is not its path's
		}{
			{a2apb.ServicePath + "GetTask", "GetTask", v10, "", ""},
			{a2apb.ServicePath + "GetTask", "GetTask", toA1, "a1", "a1"},
			{a2apb03.ServicePath + "GetTask", "GetTask", v03, "", ""},
			{a2apb.ServicePath + "NoSuchMethod", "", toA1, "", ""},
			{"/no.such.Service/GetTask", "", toA1, "", ""},
		} {
			path := base + c.path
			srv.Reset()
			r := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(c.body))
			r.ProtoMajor, r.ProtoMinor, r.Proto = 2, 0, "HTTP/2.0"
			r.Header.Set("Content-Type", "application/grpc")
			call, ok := srv.GRPCCall(r)
			assert.True(t, ok, "%s is a gRPC call", path)
			wantAgent := cmp.Or(c.with, pathAgent)
			assert.Equal(t, server.GRPCCall{Agent: wantAgent, Method: c.want, Tenant: c.tenant}, call, "GRPCCall(%s)", path)
			srv.Handler().ServeHTTP(httptest.NewRecorder(), r)
			entries := srv.Journal().Entries()
			require.NotEmpty(t, entries, "%s journaled nothing", path)
			assert.Equal(t, call.Method, entries[0].Method, "the method %s is journaled with", path)
			assert.Equal(t, call.Agent, entries[0].Agent, "the agent %s is journaled as", path)
		}
	}
	off, err := server.New(server.Config{StepDelay: -1})
	require.NoError(t, err)
	defer func() { require.NoError(t, off.Close()) }()
	for _, c := range []struct {
		name   string
		srv    *server.Server
		method string
		path   string
	}{
		{"gRPC off", off, http.MethodPost, a2apb.ServicePath + "GetTask"},
		{"a GET", srv, http.MethodGet, "/agents/a1" + a2apb.ServicePath + "GetTask"},
		{"an agent not hosted", srv, http.MethodPost, "/agents/nobody" + a2apb.ServicePath + "GetTask"},
	} {
		r := httptest.NewRequest(c.method, c.path, bytes.NewReader(toA1))
		r.ProtoMajor, r.ProtoMinor, r.Proto = 2, 0, "HTTP/2.0"
		r.Header.Set("Content-Type", "application/grpc")
		call, ok := c.srv.GRPCCall(r)
		assert.False(t, ok || call != server.GRPCCall{}, "%s: GRPCCall reads %s %s as a call %+v", c.name, c.method, c.path, call)
	}
}
