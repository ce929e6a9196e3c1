package wirerec

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/internal/a2apb03"
)

// bigGRPCCall is a v1.0 SendMessage call to tenant beta whose message
// carries a text of size bytes, as a request to the root.
func bigGRPCCall(t testing.TB, size int) func() *http.Request {
	t.Helper()
	msg, err := proto.Marshal(&a2apb.SendMessageRequest{Tenant: "beta", Message: &a2apb.Message{MessageId: "m", Role: a2apb.Role_ROLE_USER,
		Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: strings.Repeat("x", size)}}}}})
	if err != nil {
		t.Fatal(err)
	}
	body := a2apb.AppendMessage(nil, msg)
	return func() *http.Request {
		r := httptest.NewRequest(http.MethodPost, a2apb.ServicePath+"SendMessage", bytes.NewReader(body))
		r.ProtoMajor, r.ProtoMinor = 2, 0
		r.Header.Set("Content-Type", "application/grpc")
		return r
	}
}

// allocated is the bytes the heap was given while f ran, the mean of
// runs calls.
func allocated(runs int, f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(runs)
}

// TestBeginHoldsNoSecondCopyOfAGRPCCall: recording a gRPC call's start
// costs no more than the server's own read of it (AgentOf: its body, kept
// for the server to serve the call, and its message decoded to route it).
// Begin once read the body a second time, up to 1 MiB, into a copy kept
// until the call ended, and decoded the message again for its tenant.
// Not parallel: the heap's count is the whole process's.
func TestBeginHoldsNoSecondCopyOfAGRPCCall(t *testing.T) {
	const size = 1 << 20
	srv := mockServer(t)
	call := bigGRPCCall(t, size)
	server := allocated(4, func() { srv.AgentOf(call()) })
	begin := allocated(4, func() {
		if rec := Begin(call(), srv); rec.Tenant != "beta" || rec.Agent != "beta" {
			t.Errorf("tenant %q, agent %q; want beta", rec.Tenant, rec.Agent)
		}
	})
	t.Logf("a %d-byte call: the server's read allocates %d bytes, Begin %d", size, server, begin)
	if begin > server+size/8 {
		t.Errorf("Begin allocates %d bytes for a %d-byte gRPC call, %d more than the server's own read of it", begin, size, begin-server)
	}
}

// BenchmarkBeginGRPC: the cost of recording the start of a gRPC call of
// 1 MiB (the server's read of it included).
func BenchmarkBeginGRPC(b *testing.B) {
	srv := mockServer(b)
	call := bigGRPCCall(b, 1<<20)
	b.ReportAllocs()
	for b.Loop() {
		Begin(call(), srv)
	}
}

// TestBeginGRPCv03: a v0.3 call's tenant is none, its service's requests
// having no tenant, though its message's first field, read with v1.0's
// messages, would name one (GetTaskRequest's name is the field v1.0's
// tenant has), and its agent is the one v0.3's route picks (none of the
// two agents is v0.3, so the path's), not the tenant it would name.
func TestBeginGRPCv03(t *testing.T) {
	t.Parallel()
	srv := mockServer(t)
	msg, err := proto.Marshal(&a2apb03.GetTaskRequest{Name: "beta"})
	if err != nil {
		t.Fatal(err)
	}
	body := a2apb.AppendMessage(nil, msg)
	for _, base := range []string{"", "/agents/beta"} {
		r := httptest.NewRequest(http.MethodPost, base+a2apb03.ServicePath+"GetTask", bytes.NewReader(body))
		r.ProtoMajor, r.ProtoMinor = 2, 0
		r.Header.Set("Content-Type", "application/grpc")
		rec := Begin(r, srv)
		wantAgent := "alpha"
		if base != "" {
			wantAgent = "beta"
		}
		if !rec.GRPC || rec.RPCMethod != "GetTask" || rec.Tenant != "" || rec.Agent != wantAgent {
			t.Errorf("at %q: grpc %v method %q tenant %q agent %q; want GetTask, no tenant, agent %q", base+"/", rec.GRPC, rec.RPCMethod, rec.Tenant, rec.Agent, wantAgent)
		}
		if got := bodyOf(t, r); got != string(body) {
			t.Errorf("at %q: the call's body changed under Begin", base+"/")
		}
	}
}
