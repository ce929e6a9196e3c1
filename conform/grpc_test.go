package conform

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/conform/internal/judge"
	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/internal/a2apb03"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// grpcClient is a fake client of the gRPC binding: it reads the card, dials
// the GRPC interface it declares and makes one blocking SendMessage with
// a2a-version metadata and, unless told not to, the interface's tenant. A
// refusal with grpc-retry-pushback-ms is retried once: after the pushback
// when patient, at once when not.
func grpcClient(patient, tenant bool) int {
	report := func(outcome, taskID, detail string) int {
		out, _ := json.Marshal(map[string]string{"outcome": outcome, "taskId": taskID, "detail": detail})
		fmt.Println(string(out))
		return 0
	}
	base := strings.TrimSuffix(os.Getenv("A2A_AGENT_URL"), "/")
	resp, err := http.Get(base + "/.well-known/agent-card.json")
	if err != nil {
		return report("error", "", err.Error())
	}
	var card struct {
		SupportedInterfaces []struct{ URL, ProtocolBinding, Tenant string } `json:"supportedInterfaces"`
	}
	err = json.NewDecoder(resp.Body).Decode(&card)
	resp.Body.Close()
	if err != nil {
		return report("error", "", err.Error())
	}
	target, tenantID := "", ""
	for _, in := range card.SupportedInterfaces {
		if in.ProtocolBinding == "GRPC" {
			target, tenantID = in.URL, in.Tenant
		}
	}
	if !tenant {
		tenantID = ""
	}
	if target == "" {
		return report("error", "", "the card declares no GRPC interface")
	}
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return report("error", "", err.Error())
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(metadata.AppendToOutgoingContext(context.Background(), "a2a-version", "1.0"), 10*time.Second)
	defer cancel()
	req := &a2apb.SendMessageRequest{Tenant: tenantID, Message: &a2apb.Message{MessageId: "grpc-1", Role: a2apb.Role_ROLE_USER,
		Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: os.Getenv("A2AMOCK_PROMPT")}}}}}
	var trailer metadata.MD
	res, err := a2apb.NewA2AServiceClient(conn).SendMessage(ctx, req, grpc.Trailer(&trailer))
	if v := trailer.Get("grpc-retry-pushback-ms"); err != nil && len(v) > 0 {
		if ms, perr := strconv.Atoi(v[0]); perr == nil && patient {
			time.Sleep(time.Duration(ms) * time.Millisecond)
		}
		res, err = a2apb.NewA2AServiceClient(conn).SendMessage(ctx, req)
	}
	if err != nil {
		return report("error", "", err.Error())
	}
	t := res.GetTask()
	if t.GetStatus().GetState() == a2apb.TaskState_TASK_STATE_COMPLETED {
		return report("completed", t.GetId(), "")
	}
	return report("error", t.GetId(), "ended "+t.GetStatus().GetState().String())
}

// TestGRPCClientJudged runs conform with the gRPC binding served (--grpc)
// against a client that speaks only gRPC: its calls are journaled as gRPC
// and judged like any other (the declared interface and its tenant, the
// A2A version, a reset call's task not held against it, gRPC's retry
// pushback honoured or not).
func TestGRPCClientJudged(t *testing.T) {
	ids := []string{"honest-v10-jsonrpc", "connection-reset", "http-error-503-retry-after"}
	lt := &listenerLog{}
	rep, err := Run(context.Background(), Options{Client: fakeCommand("grpc"), Scenarios: ids, GRPC: true, Grace: 300 * time.Millisecond, KeepJournal: true,
		hooks: lt.hooks(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.GRPC {
		t.Error("the report does not say the run served gRPC")
	}
	by := map[string]*ScenarioResult{}
	for _, res := range rep.Scenarios {
		by[res.ID] = res
	}
	for _, id := range ids {
		res := by[id]
		for _, c := range res.Checks {
			if !c.Pass {
				t.Errorf("%s/%s failed for a client that did it right: %s", id, c.ID, c.Reason)
			}
		}
		for _, e := range res.Journal {
			if e.Kind == server.EntryRequest && e.Binding != server.BindingGRPC {
				t.Errorf("%s: journal entry %d is a %s request over %q, not gRPC", id, e.Seq, e.Op, e.Binding)
			}
		}
	}
	if got := check(t, by["honest-v10-jsonrpc"], "uses-declared-interface").Reason; !strings.Contains(got, "all 1 call(s)") {
		t.Errorf("honest-v10-jsonrpc/uses-declared-interface: %s", got)
	}
	if got := check(t, by["connection-reset"], "no-orphans").Reason; !strings.Contains(got, "whose id never reached the client") {
		t.Errorf("connection-reset/no-orphans: the reset call's task should not count: %s", got)
	}
	if got := check(t, by["http-error-503-retry-after"], "honours-retry-after").Reason; !strings.Contains(got, "1 Retry-After answer(s) honoured") {
		t.Errorf("http-error-503-retry-after/honours-retry-after: %s", got)
	}

	eager, err := Run(context.Background(), Options{Client: fakeCommand("grpc-eager"), Scenarios: []string{"http-error-503-retry-after"}, GRPC: true, Grace: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	wantFail(t, eager.Scenarios[0], "honours-retry-after", "gRPC status 14 with grpc-retry-pushback-ms: 1000")

	// A client that leaves out the tenant the card declares is served (by
	// the root agent, here the same one) but did not use the interface
	// the card declares.
	untenanted, err := Run(context.Background(), Options{Client: fakeCommand("grpc-no-tenant"), Scenarios: []string{"honest-v10-jsonrpc"}, GRPC: true, Grace: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	wantFail(t, untenanted.Scenarios[0], "uses-declared-interface", `gRPC SendMessage with tenant "" but the card declares only`)
	lt.assertClosed(t, rep)
}

// TestGRPCCallsRecordTheAgentJournaled: a gRPC call's wire record names
// the agent the server journals it as, which its path alone does not
// tell. A v0.3 call names no agent: it reaches the root when the root's
// card is v0.3, else the only agent whose card is; with several, the
// root (the call is refused there). A v1.0 call reaches the agent its
// tenant names, below an agent's path too, but only when the server reads
// its message: one whole uncompressed message of application/grpc, of any
// size the server takes. conform once read the tenant itself, and named
// the path's agent for a tenant below an agent's path or past the first
// MiB of the body, and the tenant's agent for a call the server refuses
// unread (a content type it does not serve, a body of two messages); and
// it named the v0.3 agent for a POST at v0.3's gRPC path that is not a
// gRPC call.
func TestGRPCCallsRecordTheAgentJournaled(t *testing.T) {
	t.Parallel()
	card := func(d wire.Dialect) *cards.Card {
		return &cards.Card{Name: "agent " + string(d), Dialect: d, Skills: []cards.Skill{{ID: "echo", Name: "Echo"}}}
	}
	frame := func(msg proto.Message) []byte {
		b, err := proto.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		return append(binary.BigEndian.AppendUint32([]byte{0}, uint32(len(b))), b...)
	}
	v03 := frame(&a2apb03.SendMessageRequest{Request: &a2apb03.Message{MessageId: "m1", Role: a2apb03.Role_ROLE_USER,
		Content: []*a2apb03.Part{{Part: &a2apb03.Part_Text{Text: "hi"}}}}})
	toA1 := frame(&a2apb.GetTaskRequest{Tenant: "a1", Id: "nope"})
	long := frame(&a2apb.GetTaskRequest{Tenant: "a1", Id: strings.Repeat("x", 3<<19)})
	type call struct {
		name, path, contentType string
		body                    []byte
		http1                   bool
		want                    string
	}
	v03Call := func(want string) []call {
		return []call{{"a v0.3 call", a2apb03.ServicePath + "SendMessage", "application/grpc", v03, false, want}}
	}
	for _, tc := range []struct {
		name     string
		dialects []wire.Dialect
		calls    []call
	}{
		{"root is v0.3", []wire.Dialect{wire.V03, wire.V03}, v03Call("a0")},
		{"two v0.3 below a v1.0 root", []wire.Dialect{wire.V10, wire.V03, wire.V03}, v03Call("a0")},
		{"no v0.3 agent", []wire.Dialect{wire.V10, wire.V10}, v03Call("a0")},
		{"one v0.3 below a v1.0 root", []wire.Dialect{wire.V10, wire.V10, wire.V03}, append(v03Call("a2"), []call{
			{"a v0.3 POST that is no gRPC call", a2apb03.ServicePath + "SendMessage", "application/grpc", v03, true, "a0"},
			{"a v1.0 call without a tenant", a2apb.ServicePath + "GetTask", "application/grpc", frame(&a2apb.GetTaskRequest{Id: "nope"}), false, "a0"},
			{"a v1.0 call with a tenant", a2apb.ServicePath + "GetTask", "application/grpc+proto", toA1, false, "a1"},
			{"a v1.0 call with an unknown tenant", a2apb.ServicePath + "GetTask", "application/grpc", frame(&a2apb.GetTaskRequest{Tenant: "nobody", Id: "nope"}), false, "a0"},
			{"a v1.0 call with a tenant below an agent's path", "/agents/a2" + a2apb.ServicePath + "GetTask", "application/grpc", toA1, false, "a1"},
			{"a v1.0 call with a tenant past the first MiB", a2apb.ServicePath + "GetTask", "application/grpc", long, false, "a1"},
			{"a v1.0 call with a tenant, of a content type not served", a2apb.ServicePath + "GetTask", "application/grpc+json", toA1, false, "a0"},
			{"a v1.0 call with a tenant, and a second message", a2apb.ServicePath + "GetTask", "application/grpc", append(slices.Clone(toA1), toA1...), false, "a0"},
			{"a v1.0 call with a tenant, compressed", a2apb.ServicePath + "GetTask", "application/grpc", append([]byte{1}, toA1[1:]...), false, "a0"},
		}...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var agents []server.AgentConfig
			for i, d := range tc.dialects {
				agents = append(agents, server.AgentConfig{Name: fmt.Sprintf("a%d", i), Card: card(d)})
			}
			m, err := startMock(server.Config{Agents: agents, GRPC: true, StepDelay: -1}, nil, net.Listen)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := m.close(); err != nil {
					t.Error(err)
				}
			}()
			for _, c := range tc.calls {
				m.srv.Reset()
				r := httptest.NewRequest(http.MethodPost, c.path, bytes.NewReader(c.body))
				r.Header.Set("Content-Type", c.contentType)
				if !c.http1 {
					r.ProtoMajor, r.ProtoMinor, r.Proto = 2, 0, "HTTP/2.0"
				}
				m.record(httptest.NewRecorder(), r)
				ws, entries := m.wire.Records(), m.srv.Journal().Entries()
				if len(entries) == 0 {
					t.Errorf("%s: journaled nothing", c.name)
					continue
				}
				if got := ws[len(ws)-1].Agent; got != c.want || got != entries[0].Agent {
					t.Errorf("%s: recorded as agent %q's, journaled as %q's; want %q's", c.name, got, entries[0].Agent, c.want)
				}
			}
		})
	}
}

// TestGRPCCallsRecordTheMethodServed: a gRPC call's wire record names its
// method and tenant as the server reads the call: the method below the
// agent's base path, the same for a call below an agent's path as for one
// at the root, and the tenant there too. conform once cut the method at
// the first "/" of the whole path (a2/lf.a2a.v1.A2AService/GetTask below
// /agents/a2/), read the tenant only at the root, and took any HTTP/2
// request of a gRPC content type, a GET too, for a gRPC call.
func TestGRPCCallsRecordTheMethodServed(t *testing.T) {
	t.Parallel()
	m, err := startMock(server.Config{Agents: []server.AgentConfig{{Name: "a0"}, {Name: "a1"}, {Name: "a2"}}, GRPC: true, StepDelay: -1}, nil, net.Listen)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := m.close(); err != nil {
			t.Error(err)
		}
	}()
	msg, err := proto.Marshal(&a2apb.GetTaskRequest{Tenant: "a1", Id: "nope"})
	if err != nil {
		t.Fatal(err)
	}
	body := append(binary.BigEndian.AppendUint32([]byte{0}, uint32(len(msg))), msg...)
	call := func(method, path string) judge.WireRecord {
		t.Helper()
		r := httptest.NewRequest(method, path, bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/grpc")
		r.ProtoMajor, r.ProtoMinor, r.Proto = 2, 0, "HTTP/2.0"
		m.record(httptest.NewRecorder(), r)
		ws := m.wire.Records()
		return ws[len(ws)-1]
	}
	root := call(http.MethodPost, a2apb.ServicePath+"GetTask")
	if !root.GRPC || root.RPCMethod != "GetTask" || root.Tenant != "a1" || root.Agent != "a1" {
		t.Fatalf("the call at the root recorded as gRPC %v, method %q, tenant %q, agent %q; want GetTask, tenant a1, agent a1", root.GRPC, root.RPCMethod, root.Tenant, root.Agent)
	}
	below := call(http.MethodPost, "/agents/a2"+a2apb.ServicePath+"GetTask")
	if !below.GRPC || below.RPCMethod != root.RPCMethod || below.Tenant != root.Tenant || below.Agent != root.Agent {
		t.Errorf("the call below /agents/a2/ recorded as gRPC %v, method %q, tenant %q, agent %q; want those of the root's: method %q, tenant %q, agent %q",
			below.GRPC, below.RPCMethod, below.Tenant, below.Agent, root.RPCMethod, root.Tenant, root.Agent)
	}
	if get := call(http.MethodGet, "/agents/a2"+a2apb.ServicePath+"GetTask"); get.GRPC || get.RPCMethod != "" || get.Tenant != "" {
		t.Errorf("an HTTP/2 GET of a gRPC content type, which the server serves as no gRPC call, recorded as gRPC %v, method %q, tenant %q", get.GRPC, get.RPCMethod, get.Tenant)
	}
}
