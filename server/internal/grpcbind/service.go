package grpcbind

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/internal/pbconv"
	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/codecs"
)

// A service is one gRPC service the binding serves, described as data so
// that one request path serves every dialect that has a gRPC binding:
// v1.0's lf.a2a.v1.A2AService and v0.3's a2a.v1.A2AService. What differs
// between them is here: the path, the dialect, the messages, the codec
// whose ProtoJSON the messages are transcoded through, the fast paths, and
// how a call finds its agent.
type service struct {
	// path is the prefix of the service's method paths
	// (/lf.a2a.v1.A2AService/).
	path string
	// dialect is the dialect the service's messages speak.
	dialect wire.Dialect
	// codec reads a request message's ProtoJSON as its params, and writes
	// results and events as the response messages' ProtoJSON.
	codec wire.Codec
	// encodeError renders an error as the dialect's HTTP+JSON error body,
	// whose google.rpc.Status the gRPC status is read from (grpcError).
	encodeError func(*wire.Error) (int, []byte)
	// methods maps a method name to its operation and request message.
	methods map[string]method
	// result returns a new response message of a unary operation
	// (google.protobuf.Empty for one that answers nothing).
	result func(op wire.Op) proto.Message
	// event returns a new StreamResponse.
	event func() proto.Message
	// card transcodes the JSON card of the dialect (the extended card's
	// result) into the service's AgentCard.
	card func(b []byte) (proto.Message, error)
	// tenants reports whether requests carry a tenant that routes them
	// (v1.0); a service without them routes with route.
	tenants bool
	// route picks the agent a tenantless call reaches, or answers why
	// there is none (nil: the agent of the path).
	route func(b *Binding, a agentRef) (agentRef, *wire.Error)
	// params, when set, amends the ProtoJSON of request in before the
	// codec reads it: what the binary message says that its ProtoJSON
	// leaves out.
	params func(in proto.Message, b []byte) []byte

	// The fast paths (pbconv, v1.0 only): each reports ok=false for what
	// it does not cover, and the codec path is taken.
	fastRequest func(op wire.Op, in proto.Message) (*wire.Request, bool)
	fastResult  func(op wire.Op, res *wire.Result) (proto.Message, bool)
	fastEvent   func(ev wire.Event) (proto.Message, bool)
}

// method is one method of a service: its operation and a constructor of
// its request message.
type method struct {
	op  wire.Op
	req func() proto.Message
}

// services are the services served, looked up by the path of a call.
var services = []*service{v10Service(), v03Service()}

// serviceOf returns the service whose method path is path, and the
// method's name; nil when path is no service's.
func serviceOf(path string) (*service, string) {
	for _, s := range services {
		if m, ok := strings.CutPrefix(path, s.path); ok {
			return s, m
		}
	}
	return nil, ""
}

// v10Service is lf.a2a.v1.A2AService, the dialect ForBinding(GRPC) names:
// its request messages are v1.0's JSON-RPC params in ProtoJSON, and the
// common sends, tasks and events take pbconv's direct conversions.
func v10Service() *service {
	d := wire.ForBinding(wire.BindingGRPC)
	codec, encodeError := codecs.ForREST(d)
	return &service{
		path: a2apb.ServicePath, dialect: d, codec: codec, encodeError: encodeError, tenants: true,
		methods: methodsOf(a2apb.File_a2a_v1_0_gen_proto, a2apb.ServicePath),
		result: func(op wire.Op) proto.Message {
			switch op {
			case wire.OpSend:
				return new(a2apb.SendMessageResponse)
			case wire.OpGetTask, wire.OpCancelTask:
				return new(a2apb.Task)
			case wire.OpListTasks:
				return new(a2apb.ListTasksResponse)
			case wire.OpSetPushConfig, wire.OpGetPushConfig:
				return new(a2apb.TaskPushNotificationConfig)
			case wire.OpListPushConfigs:
				return new(a2apb.ListTaskPushNotificationConfigsResponse)
			case wire.OpExtendedCard:
				return new(a2apb.AgentCard)
			}
			return new(emptypb.Empty)
		},
		event: func() proto.Message { return new(a2apb.StreamResponse) },
		// The v1.0 JSON card is the proto's ProtoJSON.
		card: func(b []byte) (proto.Message, error) {
			msg := new(a2apb.AgentCard)
			return msg, fromJSON.Unmarshal(b, msg)
		},
		fastRequest: func(op wire.Op, in proto.Message) (*wire.Request, bool) {
			if send, ok := in.(*a2apb.SendMessageRequest); ok {
				return pbconv.SendRequest(op, send)
			}
			return nil, false
		},
		fastResult: func(op wire.Op, res *wire.Result) (proto.Message, bool) {
			switch {
			case op == wire.OpSend:
				return pbconv.SendResponse(res)
			case (op == wire.OpGetTask || op == wire.OpCancelTask) && res != nil && res.Task != nil:
				return pbconv.Task(res.Task)
			}
			return nil, false
		},
		fastEvent: func(ev wire.Event) (proto.Message, bool) { return pbconv.StreamResponse(ev) },
	}
}

// methodsOf lists the methods of the A2AService of file, called at path:
// each one's operation as package wire names it for that path
// (LookupGRPCMethod, where every dialect's method names are written once)
// and its request message's type, from the generated code.
func methodsOf(file protoreflect.FileDescriptor, path string) map[string]method {
	sd := file.Services().ByName("A2AService")
	out := make(map[string]method, sd.Methods().Len())
	for i := range sd.Methods().Len() {
		md := sd.Methods().Get(i)
		_, op, ok := wire.LookupGRPCMethod(path + string(md.Name()))
		mt, err := protoregistry.GlobalTypes.FindMessageByName(md.Input().FullName())
		if !ok || err != nil {
			panic(fmt.Sprintf("grpcbind: method %s%s: no operation or message type (%v)", path, md.Name(), err))
		}
		out[string(md.Name())] = method{op: op, req: func() proto.Message { return mt.New().Interface() }}
	}
	return out
}

// method returns the named method of s; ok is false when s is nil (the
// path is no service's) or has no such method.
func (s *service) method(name string) (method, bool) {
	if s == nil {
		return method{}, false
	}
	m, ok := s.methods[name]
	return m, ok
}

// agentRef is an agent and the base path it is served below.
type agentRef struct {
	a    binding.Agent
	base string
}
