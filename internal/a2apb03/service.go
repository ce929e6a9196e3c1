package a2apb03

import "google.golang.org/protobuf/reflect/protoreflect"

// ServicePath is the path prefix of the service's methods on the wire
// (/a2a.v1.A2AService/{Method}).
const ServicePath = "/a2a.v1.A2AService/"

// Method returns the descriptor of the service's method name (SendMessage,
// say), nil when the service has none.
func Method(name string) protoreflect.MethodDescriptor {
	return File_a2a_v0_3_0_gen_proto.Services().ByName("A2AService").Methods().ByName(protoreflect.Name(name))
}
