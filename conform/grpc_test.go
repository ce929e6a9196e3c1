package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/a2amock/a2amock/cards"
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
	rep, err := Run(context.Background(), Options{Client: fakeCommand("grpc"), Scenarios: ids, GRPC: true, Grace: 300 * time.Millisecond, KeepJournal: true})
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
	assertNoListener(t, rep)
}

// TestV03GRPCCallsRecordTheirAgent: a v0.3 gRPC call names no agent, so
// its wire record names the agent the server routes it to: the root when
// the root's card is v0.3, else the only agent whose card is; with
// several, the root (the call is refused there). v1.0 calls without a
// tenant stay the root's.
func TestV03GRPCCallsRecordTheirAgent(t *testing.T) {
	card := func(d wire.Dialect) *cards.Card {
		return &cards.Card{Name: "agent " + string(d), Dialect: d, Skills: []cards.Skill{{ID: "echo", Name: "Echo"}}}
	}
	for _, tc := range []struct {
		name     string
		dialects []wire.Dialect
		want     string
	}{
		{"root is v0.3", []wire.Dialect{wire.V03, wire.V03}, "a0"},
		{"one v0.3 below a v1.0 root", []wire.Dialect{wire.V10, wire.V10, wire.V03}, "a2"},
		{"two v0.3 below a v1.0 root", []wire.Dialect{wire.V10, wire.V03, wire.V03}, "a0"},
		{"no v0.3 agent", []wire.Dialect{wire.V10, wire.V10}, "a0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var agents []server.AgentConfig
			for i, d := range tc.dialects {
				agents = append(agents, server.AgentConfig{Name: fmt.Sprintf("a%d", i), Card: card(d)})
			}
			m, err := startMock(server.Config{Agents: agents, GRPC: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := m.close(); err != nil {
					t.Error(err)
				}
			}()
			if got := m.agentOf(a2apb03.ServicePath + "SendMessage"); got != tc.want {
				t.Errorf("a v0.3 gRPC call is recorded as agent %q's, want %q's", got, tc.want)
			}
			if got := m.agentOf(a2apb.ServicePath + "SendMessage"); got != "a0" {
				t.Errorf("a v1.0 gRPC call without a tenant is recorded as agent %q's, want the root's", got)
			}
		})
	}
}
