package wire_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/internal/a2apb03"
	"github.com/a2amock/a2amock/wire"
)

// Every dialect served over gRPC names a service the generated code
// holds, and LookupGRPCMethod maps each of its methods to one of the
// dialect's operations, every operation once.
func TestGRPCServicesMatchTheProtos(t *testing.T) {
	t.Parallel()
	served := 0
	for _, desc := range wire.Descriptors() {
		if !desc.GRPC {
			continue
		}
		served++
		var sd protoreflect.ServiceDescriptor
		switch "/" + desc.GRPCService + "/" {
		case a2apb.ServicePath:
			sd = a2apb.File_a2a_v1_0_gen_proto.Services().ByName("A2AService")
		case a2apb03.ServicePath:
			sd = a2apb03.File_a2a_v0_3_0_gen_proto.Services().ByName("A2AService")
		}
		require.NotNil(t, sd, "%s: service %q is not one the generated code serves", desc.Dialect, desc.GRPCService)
		var ops []wire.Op
		for i := range sd.Methods().Len() {
			name := string(sd.Methods().Get(i).Name())
			d, op, ok := wire.LookupGRPCMethod("/" + desc.GRPCService + "/" + name)
			require.True(t, ok, "%s: method %s", desc.Dialect, name)
			assert.Equal(t, desc.Dialect, d, name)
			ops = append(ops, op)
		}
		slices.Sort(ops)
		want := slices.Clone(desc.Ops)
		slices.Sort(want)
		assert.Equal(t, want, ops, "%s: one method per operation", desc.Dialect)
	}
	assert.Equal(t, 2, served, "two dialects are served over gRPC")
	for _, bad := range []string{"", "/", "lf.a2a.v1.A2AService/SendMessage", "/lf.a2a.v1.A2AService/", "/lf.a2a.v1.A2AService/message/send", "/other.Service/SendMessage"} {
		_, _, ok := wire.LookupGRPCMethod(bad)
		assert.False(t, ok, "%q", bad)
	}
}
