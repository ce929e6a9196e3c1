package grpcbind

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/a2amock/a2amock/internal/a2apb03"
	"github.com/a2amock/a2amock/wire"
)

func TestGRPC03ServiceDescribesV03(t *testing.T) {
	t.Parallel()
	svc, m := serviceOf("/a2a.v1.A2AService/TaskSubscription")
	require.NotNil(t, svc)
	assert.Equal(t, wire.V03, svc.dialect)
	assert.Equal(t, wire.V03, svc.codec.Dialect())
	got, ok := svc.method(m)
	require.True(t, ok)
	assert.Equal(t, wire.OpSubscribe, got.op)
	// Every rpc of the proto's service is served, and nothing else.
	rpcs := a2apb03.File_a2a_v0_3_0_gen_proto.Services().ByName("A2AService").Methods()
	assert.Equal(t, rpcs.Len(), len(svc.methods))
	for name := range svc.methods {
		assert.NotNil(t, a2apb03.Method(name), name)
	}
	v10, _ := serviceOf("/lf.a2a.v1.A2AService/SubscribeToTask")
	require.NotNil(t, v10)
	assert.Equal(t, wire.V10, v10.dialect)
	none, _ := serviceOf("/other.Service/GetTask")
	assert.Nil(t, none)
}

// TestGRPC03Card: the JSON card's OpenAPI security schemes and
// requirements become the proto's oneof and Security messages.
func TestGRPC03Card(t *testing.T) {
	t.Parallel()
	msg, err := card03([]byte(`{"protocolVersion":"0.3.0","name":"a","url":"http://h/","preferredTransport":"JSONRPC",
	"additionalInterfaces":[{"url":"h:1","transport":"GRPC"}],"iconUrl":"http://h/i.png",
	"capabilities":{"streaming":true,"stateTransitionHistory":true},
	"securitySchemes":{"k":{"type":"apiKey","in":"header","name":"X-Key"},"b":{"type":"http","scheme":"bearer","bearerFormat":"JWT"},
	  "o":{"type":"oauth2","flows":{"clientCredentials":{"tokenUrl":"https://t","scopes":{"r":"read"}},"password":{"tokenUrl":"https://p","scopes":{}}}},
	  "i":{"type":"openIdConnect","openIdConnectUrl":"https://o"},"m":{"type":"mutualTLS","description":"d"}},
	"security":[{"b":[]},{"o":["r"]}],
	"skills":[{"id":"s","name":"S","description":"d","tags":["t"],"security":[{"k":[]}]}]}`))
	require.NoError(t, err)
	c := msg.(*a2apb03.AgentCard)
	assert.Equal(t, "GRPC", c.GetAdditionalInterfaces()[0].GetTransport())
	assert.Equal(t, "header", c.GetSecuritySchemes()["k"].GetApiKeySecurityScheme().GetLocation())
	assert.Equal(t, "JWT", c.GetSecuritySchemes()["b"].GetHttpAuthSecurityScheme().GetBearerFormat())
	assert.Equal(t, "https://t", c.GetSecuritySchemes()["o"].GetOauth2SecurityScheme().GetFlows().GetClientCredentials().GetTokenUrl())
	assert.Equal(t, "https://o", c.GetSecuritySchemes()["i"].GetOpenIdConnectSecurityScheme().GetOpenIdConnectUrl())
	assert.Equal(t, "d", c.GetSecuritySchemes()["m"].GetMtlsSecurityScheme().GetDescription())
	require.Len(t, c.GetSecurity(), 2)
	assert.Equal(t, []string{"r"}, c.GetSecurity()[1].GetSchemes()["o"].GetList())
	assert.Contains(t, c.GetSkills()[0].GetSecurity()[0].GetSchemes(), "k")
	assert.True(t, c.GetCapabilities().GetStreaming())
}

// TestGRPC03Blocking: a configuration's blocking=false, which ProtoJSON
// leaves out, reaches the codec; no configuration, or true, blocks.
func TestGRPC03Blocking(t *testing.T) {
	t.Parallel()
	svc, _ := serviceOf("/a2a.v1.A2AService/SendMessage")
	decode := func(in *a2apb03.SendMessageRequest) *wire.Request {
		b, err := protojson.Marshal(in)
		require.NoError(t, err)
		req, e := svc.codec.DecodeParams(wire.OpSend, svc.params(in, b))
		require.Nil(t, e)
		return req
	}
	msg := &a2apb03.Message{MessageId: "m", Role: a2apb03.Role_ROLE_USER, Content: []*a2apb03.Part{{Part: &a2apb03.Part_Text{Text: "hi"}}}}
	assert.False(t, decode(&a2apb03.SendMessageRequest{Request: msg}).Config.ReturnImmediately)
	assert.False(t, decode(&a2apb03.SendMessageRequest{Request: msg, Configuration: &a2apb03.SendMessageConfiguration{Blocking: true}}).Config.ReturnImmediately)
	assert.True(t, decode(&a2apb03.SendMessageRequest{Request: msg, Configuration: &a2apb03.SendMessageConfiguration{}}).Config.ReturnImmediately)
}

// TestGRPC03ErrorStatus: a v0.3 error's status has v1.0's code and
// ErrorInfo, and a message that starts with the v0.3 error name.
func TestGRPC03ErrorStatus(t *testing.T) {
	t.Parallel()
	v03, _ := serviceOf("/a2a.v1.A2AService/GetTask")
	v10, _ := serviceOf("/lf.a2a.v1.A2AService/GetTask")
	e := wire.ErrTaskNotFound("t1")
	code, msg, details := grpcError(v03, e)
	assert.Equal(t, codes.NotFound, code)
	assert.Equal(t, "TaskNotFoundError: "+e.Message, msg)
	assert.Len(t, details, 1)
	code, msg, _ = grpcError(v10, e)
	assert.Equal(t, codes.NotFound, code)
	assert.Equal(t, e.Message, msg, "v1.0's message is unchanged")
	code, _, _ = grpcError(v03, wire.Errorf(wire.CodeTaskNotCancelable, "done"))
	assert.Equal(t, codes.FailedPrecondition, code)
}
