package grpcbind

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/a2amock/a2amock/internal/a2apb03"
	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/codecs"
)

// v03Service is a2a.v1.A2AService, the gRPC binding of the newest dialect
// below ForBinding(GRPC) whose descriptor sets GRPC (v0.3). Its messages
// are the v0.3 proto's, whose ProtoJSON is what the dialect's HTTP+JSON
// codec reads and writes (codecs.ForREST: v0.3's HTTP+JSON bodies are that
// proto's JSON), so a call is transcoded through that codec and both v0.3
// bindings map the canonical model alike. v0.3 requests carry no tenant: a
// call reaches the agent route03 picks.
func v03Service() *service {
	d := grpcDialectBelow(wire.ForBinding(wire.BindingGRPC))
	codec, encodeError := codecs.ForREST(d)
	s := &service{
		path: a2apb03.ServicePath, dialect: d, codec: codec, encodeError: encodeError,
		methods: methodsOf(a2apb03.File_a2a_v0_3_0_gen_proto, a2apb03.ServicePath),
		result: func(op wire.Op) proto.Message {
			switch op {
			case wire.OpSend:
				return new(a2apb03.SendMessageResponse)
			case wire.OpGetTask, wire.OpCancelTask:
				return new(a2apb03.Task)
			case wire.OpSetPushConfig, wire.OpGetPushConfig:
				return new(a2apb03.TaskPushNotificationConfig)
			case wire.OpListPushConfigs:
				return new(a2apb03.ListTaskPushNotificationConfigResponse)
			case wire.OpExtendedCard:
				return new(a2apb03.AgentCard)
			}
			return new(emptypb.Empty)
		},
		event:  func() proto.Message { return new(a2apb03.StreamResponse) },
		card:   card03,
		params: blocking03,
	}
	s.route = func(b *Binding, at agentRef) (agentRef, *wire.Error) { return route03(b, s.dialect, at) }
	return s
}

// blocking03 writes a send's configuration.blocking when it is false. The
// proto's bool has no presence: a configuration says blocking or not
// (false: answer at once, as the SDKs' v0.3 gRPC servers read it), but
// ProtoJSON leaves a false out, and the codec, reading v0.3's JSON, takes
// an absent blocking for true. A send without a configuration blocks.
func blocking03(in proto.Message, b []byte) []byte {
	send, ok := in.(*a2apb03.SendMessageRequest)
	if !ok || send.GetConfiguration() == nil || send.GetConfiguration().GetBlocking() {
		return b
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return b
	}
	var cfg map[string]json.RawMessage
	if json.Unmarshal(m["configuration"], &cfg) != nil || cfg == nil {
		cfg = map[string]json.RawMessage{}
	}
	cfg["blocking"] = json.RawMessage("false")
	m["configuration"], _ = json.Marshal(cfg)
	out, err := json.Marshal(m)
	if err != nil {
		return b
	}
	return out
}

// grpcDialectBelow is the newest dialect older than newest that is served
// over gRPC (wire.Descriptor.GRPC); "" when there is none.
func grpcDialectBelow(newest wire.Dialect) wire.Dialect {
	below := false
	for _, desc := range wire.Descriptors() {
		if below && desc.GRPC {
			return desc.Dialect
		}
		below = below || desc.Dialect == newest
	}
	return ""
}

// cardDialect is the dialect of agent a's card ("" when a does not say).
func cardDialect(a any) wire.Dialect {
	if c, ok := a.(interface{ CardDialect() wire.Dialect }); ok {
		return c.CardDialect()
	}
	return ""
}

// route03 picks the agent a tenantless call of dialect d reaches. gRPC
// clients dial host:port and v0.3 requests name no agent, so: the agent
// of the call's path (at host:port, the root) when its card is of d;
// otherwise the one hosted agent whose card is of d, when there is
// exactly one. With none, or several, the call reaches no agent, and the
// error says why (the binding answers UNIMPLEMENTED).
func route03(b *Binding, d wire.Dialect, at agentRef) (agentRef, *wire.Error) {
	if cardDialect(at.a) == d {
		return at, nil
	}
	var found []agentRef
	var names []string
	for _, name := range b.host.AgentNames() {
		if a, base, ok := b.host.TenantAgent(name); ok && cardDialect(a) == d {
			found = append(found, agentRef{a: a, base: base})
			names = append(names, name)
		}
	}
	if len(found) == 1 {
		return found[0], nil
	}
	why := "no hosted agent's card is"
	if len(found) > 1 {
		sort.Strings(names)
		why = fmt.Sprintf("%d hosted agents' cards are (%s), and a v%s request names none of them", len(found), strings.Join(names, ", "), d)
	}
	return at, wire.Errorf(wire.CodeMethodNotFound, "the A2A v%s gRPC service reaches no agent here: v%s gRPC calls carry no tenant, so they reach the root agent when its card is v%s (the root's is v%s), else the one hosted agent whose card is v%s, and %s v%s",
		d, d, d, cardDialect(at.a), d, why, d)
}

// Reaches reports whether a tenantless gRPC call of dialect d at the
// server's host:port reaches agent a: always for a dialect whose requests
// carry a tenant (a card names its agent as the tenant), else the agent
// route03 picks. An agent's card declares its dialect's GRPC interface
// only when it does: a declared interface always reaches its agent.
func (b *Binding) Reaches(a any, d wire.Dialect) bool {
	if wire.Describe(d).Tenant {
		return true
	}
	names := b.host.AgentNames()
	if len(names) == 0 {
		return false
	}
	root, _, ok := b.host.TenantAgent(names[0])
	if !ok {
		return false
	}
	got, e := route03(b, d, agentRef{a: root})
	return e == nil && got.a == a
}

// card03 transcodes a v0.3 JSON card into the proto's AgentCard. The
// members are the proto's ProtoJSON but for the security schemes, which
// the JSON card writes as OpenAPI objects ({"type":"http","scheme":…})
// and the proto as a oneof (httpAuthSecurityScheme), and the requirements,
// a list of {scheme: scopes} in JSON and of {schemes: {scheme: {list}}} in
// the proto. What the 0.3.0 proto lacks (iconUrl,
// capabilities.stateTransitionHistory) is left out.
func card03(b []byte) (proto.Message, error) {
	var card map[string]any
	if err := json.Unmarshal(b, &card); err != nil {
		return nil, err
	}
	if schemes, ok := card["securitySchemes"].(map[string]any); ok {
		for name, v := range schemes {
			schemes[name] = scheme03(v)
		}
	}
	card["security"] = security03(card["security"])
	if skills, ok := card["skills"].([]any); ok {
		for _, sk := range skills {
			if m, ok := sk.(map[string]any); ok {
				m["security"] = security03(m["security"])
			}
		}
	}
	out, err := json.Marshal(card)
	if err != nil {
		return nil, err
	}
	msg := new(a2apb03.AgentCard)
	return msg, fromJSON.Unmarshal(out, msg)
}

// scheme03 is a JSON card's security scheme as the proto's SecurityScheme.
func scheme03(v any) any {
	s, ok := v.(map[string]any)
	if !ok {
		return v
	}
	pick := func(keys ...string) map[string]any {
		out := map[string]any{}
		for _, k := range keys {
			from, to, renamed := strings.Cut(k, ":")
			if !renamed {
				to = from
			}
			if x, ok := s[from]; ok {
				out[to] = x
			}
		}
		return out
	}
	switch s["type"] {
	case "apiKey":
		return map[string]any{"apiKeySecurityScheme": pick("description", "in:location", "name")}
	case "http":
		return map[string]any{"httpAuthSecurityScheme": pick("description", "scheme", "bearerFormat")}
	case "oauth2":
		o := pick("description", "oauth2MetadataUrl")
		if flows, ok := s["flows"].(map[string]any); ok {
			// The proto's OAuthFlows is a oneof: the first flow, in the
			// proto's order.
			for _, f := range []string{"authorizationCode", "clientCredentials", "implicit", "password"} {
				if x, ok := flows[f]; ok {
					o["flows"] = map[string]any{f: x}
					break
				}
			}
		}
		return map[string]any{"oauth2SecurityScheme": o}
	case "openIdConnect":
		return map[string]any{"openIdConnectSecurityScheme": pick("description", "openIdConnectUrl")}
	case "mutualTLS":
		return map[string]any{"mtlsSecurityScheme": pick("description")}
	}
	return map[string]any{}
}

// security03 is a JSON card's list of requirements ({scheme: [scopes]})
// as the proto's repeated Security ({schemes: {scheme: {list: scopes}}}).
func security03(v any) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	out := make([]any, 0, len(list))
	for _, alt := range list {
		m, ok := alt.(map[string]any)
		if !ok {
			continue
		}
		schemes := map[string]any{}
		for name, scopes := range m {
			schemes[name] = map[string]any{"list": scopes}
		}
		out = append(out, map[string]any{"schemes": schemes})
	}
	return out
}
