package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

func authCard(schemes map[string]cards.SecurityScheme, ext bool) *cards.Card {
	c := testCard(wire.V10, true)
	c.SecuritySchemes = schemes
	c.Capabilities.ExtendedAgentCard = ext
	return c
}

func basic(u, p string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(u+":"+p)) }

func TestAuthSchemes(t *testing.T) {
	t.Parallel()
	send := rpcBody("SendMessage", map[string]any{"message": map[string]any{"messageId": "m", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hi"}}}})
	cases := []struct {
		name   string
		scheme cards.SecurityScheme
		path   string
		good   map[string]string
		bad    map[string]string
	}{
		{"apiKey header", cards.SecurityScheme{Type: "apiKey", In: "header", Name: "X-API-Key"}, "/",
			map[string]string{"X-API-Key": server.TestAPIKey}, map[string]string{"X-API-Key": "nope"}},
		{"apiKey query", cards.SecurityScheme{Type: "apiKey", In: "query", Name: "key"}, "/?key=" + server.TestAPIKey,
			nil, nil},
		{"apiKey cookie", cards.SecurityScheme{Type: "apiKey", In: "cookie", Name: "sid"}, "/",
			map[string]string{"Cookie": "sid=" + server.TestAPIKey}, map[string]string{"Cookie": "sid=zzz"}},
		{"bearer", cards.SecurityScheme{Type: "http", Scheme: "bearer"}, "/",
			map[string]string{"Authorization": "Bearer " + server.TestBearerToken}, map[string]string{"Authorization": "Bearer wrong"}},
		{"basic", cards.SecurityScheme{Type: "http", Scheme: "basic"}, "/",
			map[string]string{"Authorization": basic(server.TestBasicUser, server.TestBasicPassword)}, map[string]string{"Authorization": basic(server.TestBasicUser, "x")}},
		{"oauth2", cards.SecurityScheme{Type: "oauth2", TokenURL: "https://auth.example/token", Scopes: map[string]string{"a": "b"}}, "/",
			map[string]string{"Authorization": "Bearer " + server.TestBearerToken}, map[string]string{"Authorization": "Bearer expired"}},
		{"oidc", cards.SecurityScheme{Type: "openIdConnect", OpenIDConnectURL: "https://auth.example/.well-known/openid-configuration"}, "/",
			map[string]string{"Authorization": "Bearer " + server.TestBearerToken}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := start(t, server.Config{Seed: 41, StepDelay: -1, Agents: []server.AgentConfig{{Name: "a",
				Card: authCard(map[string]cards.SecurityScheme{"s": tc.scheme}, false), EnforceAuth: true}}})
			hdr := func(extra map[string]string) map[string]string {
				out := map[string]string{"A2A-Version": "1.0"}
				for k, v := range extra {
					out[k] = v
				}
				return out
			}
			status, respHdr, b := h.post("/", send, hdr(nil))
			require.Equal(t, http.StatusUnauthorized, status, "%s", b)
			assert.NotEmpty(t, respHdr.Get("WWW-Authenticate"))
			var r rpcResponse
			require.NoError(t, json.Unmarshal(b, &r))
			require.NotNil(t, r.Error)
			assert.Equal(t, wire.CodeUnauthenticated, r.Error.Code)
			if tc.bad != nil {
				status, _, b = h.post("/", send, hdr(tc.bad))
				assert.Equal(t, http.StatusUnauthorized, status, "%s", b)
			}
			status, _, b = h.post(tc.path, send, hdr(tc.good))
			assert.Equal(t, http.StatusOK, status, "%s", b)
			assert.Contains(t, string(b), "TASK_STATE_COMPLETED")

			// The card stays public.
			status, _, _ = h.do(http.MethodGet, "/.well-known/agent-card.json", nil, nil)
			assert.Equal(t, http.StatusOK, status)
		})
	}
}

func TestAuthForbiddenRESTAndJournal(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 42, StepDelay: -1, Agents: []server.AgentConfig{{Name: "a",
		Card: authCard(map[string]cards.SecurityScheme{"bearer": {Type: "http", Scheme: "bearer"}}, true), ExtendedCard: testCard(wire.V10, true), EnforceAuth: true}}})
	status, _, b := h.do(http.MethodGet, "/rest/extendedAgentCard", nil, v1)
	assert.Equal(t, http.StatusUnauthorized, status)
	st := requireRESTStatus(t, status, b)
	assert.Equal(t, "UNAUTHENTICATED", st["error"].(map[string]any)["status"])

	status, _, b = h.do(http.MethodGet, "/rest/extendedAgentCard", nil, map[string]string{"A2A-Version": "1.0", "Authorization": "Bearer " + server.TestForbiddenToken})
	assert.Equal(t, http.StatusForbidden, status)
	st = requireRESTStatus(t, status, b)
	assert.Equal(t, "PERMISSION_DENIED", st["error"].(map[string]any)["status"])

	status, _, b = h.do(http.MethodGet, "/rest/extendedAgentCard", nil, map[string]string{"A2A-Version": "1.0", "Authorization": "Bearer " + server.TestBearerToken})
	assert.Equal(t, http.StatusOK, status, "%s", b)

	status, _, raw := h.post("/", rpcBody("GetExtendedAgentCard", map[string]any{}), map[string]string{"A2A-Version": "1.0", "Authorization": "Bearer " + server.TestForbiddenToken})
	assert.Equal(t, http.StatusForbidden, status)
	var r rpcResponse
	require.NoError(t, json.Unmarshal(raw, &r))
	require.NotNil(t, r.Error, "%s", raw)
	assert.Equal(t, wire.CodeUnauthorized, r.Error.Code)

	j, err := json.Marshal(h.srv.Journal().Entries())
	require.NoError(t, err)
	assert.NotContains(t, string(j), server.TestBearerToken)
	assert.NotContains(t, string(j), server.TestForbiddenToken)
}

func TestAuthRequiredFlow(t *testing.T) {
	t.Parallel()
	card := testCard(wire.V10, false)
	tl := timeline.Timeline{{Kind: timeline.StepState, State: wire.StateSubmitted}, {Kind: timeline.StepState, State: wire.StateAuthRequired, Message: "sign in"}}
	h := start(t, server.Config{Seed: 43, StepDelay: -1, Agents: []server.AgentConfig{{Name: "a", Card: card,
		Timelines: map[string]timeline.Timeline{"echo": tl}}}})
	cl := newClient(t, h, dialectCases[0])
	tk := cl.mustSend(sendOpts{skill: "echo"})
	require.Equal(t, wire.StateAuthRequired, tk.State)

	msg := func(id string) any {
		return map[string]any{"message": map[string]any{"messageId": "m-" + id, "role": "ROLE_USER", "taskId": tk.ID, "contextId": tk.ContextID,
			"parts": []any{map[string]any{"text": "here"}}}}
	}
	status, _, b := h.post("/", rpcBody("SendMessage", msg("1")), v1)
	require.Equal(t, http.StatusUnauthorized, status, "%s", b)
	assert.Contains(t, string(b), "auth-required")

	status, _, b = h.post("/", rpcBody("SendMessage", msg("2")), map[string]string{"A2A-Version": "1.0", "Authorization": "Bearer anything"})
	require.Equal(t, http.StatusOK, status, "%s", b)
	assert.Contains(t, string(b), "TASK_STATE_COMPLETED")
}

// TestAuthOverGRPC: an agent enforcing its card's bearer scheme reads the
// credentials from gRPC metadata: none is UNAUTHENTICATED, a refused token
// PERMISSION_DENIED, the test token served; no token reaches the journal.
func TestAuthOverGRPC(t *testing.T) {
	t.Parallel()
	h := start(t, server.Config{Seed: 44, StepDelay: -1, GRPC: true, Agents: []server.AgentConfig{{Name: "a",
		Card: authCard(map[string]cards.SecurityScheme{"bearer": {Type: "http", Scheme: "bearer"}}, false), EnforceAuth: true}}})
	conn, err := grpc.NewClient(strings.TrimPrefix(h.url, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	c := a2apb.NewA2AServiceClient(conn)
	with := func(token string) context.Context {
		ctx := grpcCtx(t)
		if token != "" {
			ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
		}
		return ctx
	}
	_, err = c.SendMessage(with(""), grpcSend("no token"))
	assert.Equal(t, codes.Unauthenticated, status.Code(err), "%v", err)
	_, err = c.SendMessage(with(server.TestForbiddenToken), grpcSend("refused token"))
	assert.Equal(t, codes.PermissionDenied, status.Code(err), "%v", err)
	res, err := c.SendMessage(with(server.TestBearerToken), grpcSend("good token"))
	require.NoError(t, err)
	assert.Equal(t, a2apb.TaskState_TASK_STATE_COMPLETED, res.GetTask().GetStatus().GetState())

	j, err := json.Marshal(h.srv.Journal().Entries())
	require.NoError(t, err)
	assert.NotContains(t, string(j), server.TestBearerToken)
	assert.NotContains(t, string(j), server.TestForbiddenToken)
}
