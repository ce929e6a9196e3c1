package a2apb

import (
	"encoding/binary"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// ServicePath is the path prefix of the service's methods on the wire
// (/lf.a2a.v1.A2AService/{Method}).
const ServicePath = "/lf.a2a.v1.A2AService/"

// Method returns the descriptor of the service's method name (SendMessage,
// say), nil when the service has none.
func Method(name string) protoreflect.MethodDescriptor {
	return File_a2a_v1_0_gen_proto.Services().ByName("A2AService").Methods().ByName(protoreflect.Name(name))
}

// NextMessage splits the first length-prefixed message off a gRPC body:
// whether its flag byte says compressed, its bytes, and what follows it;
// ok is false when b does not begin with a whole one.
func NextMessage(b []byte) (compressed bool, msg, rest []byte, ok bool) {
	if len(b) < 5 {
		return false, nil, b, false
	}
	n := uint64(binary.BigEndian.Uint32(b[1:5]))
	if uint64(len(b)-5) < n {
		return false, nil, b, false
	}
	return b[0] != 0, b[5 : 5+n], b[5+n:], true
}
