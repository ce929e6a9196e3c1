package a2apb

import (
	"encoding/binary"
	"slices"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/a2amock/a2amock/internal/a2apb03"
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

// AppendMessage appends msg to dst as one uncompressed length-prefixed
// gRPC message, NextMessage's inverse.
func AppendMessage(dst, msg []byte) []byte {
	dst = slices.Grow(dst, 5+len(msg))
	dst = append(dst, 0)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(msg)))
	return append(dst, msg...)
}

// MethodAt returns the method of an A2A gRPC service a call's path names:
// this service's (/lf.a2a.v1.A2AService/SendMessage) or v0.3's
// (/a2a.v1.A2AService/SendMessage, package a2apb03); nil for any other
// path.
func MethodAt(path string) protoreflect.MethodDescriptor {
	if method, ok := strings.CutPrefix(path, ServicePath); ok {
		return Method(method)
	}
	if method, ok := strings.CutPrefix(path, a2apb03.ServicePath); ok {
		return a2apb03.Method(method)
	}
	return nil
}
