package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/status"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/internal/a2apb03"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/wire"
)

// sweepText is the text of every message TestGRPC03EveryBehavior sends.
const sweepText = "sweep"

// sweepRun is what one binding's run left in the journal, projected on
// what a protocol behavior decides (decisions, events, what streams
// delivered, withheld or dropped, and the answers' states and codes).
type sweepRun []string

func projectJournal(s *server.Server) sweepRun {
	var out sweepRun
	for _, e := range s.Journal().Entries() {
		switch e.Kind {
		case server.EntryDecision, server.EntryEvent, server.EntryStreamEvent, server.EntryDropped, server.EntryWithheld, server.EntryResponse:
			out = append(out, fmt.Sprintf("%s %s task=%s state=%s code=%d", e.Kind, e.Op, e.TaskID, e.State, e.ErrorCode))
		}
	}
	return out
}

// sweepREST runs the calls over v0.3 HTTP+JSON, bounded by ctx; it reads
// whatever comes back and judges nothing.
func sweepREST(ctx context.Context, h *harness) {
	do := func(method, path string, body []byte) []byte {
		req, err := http.NewRequestWithContext(ctx, method, h.url+path, bytes.NewReader(body))
		if err != nil {
			return nil
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "0.3")
		resp, err := h.client.Do(req)
		if err != nil {
			return nil
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return b
	}
	msg := func(id string) []byte {
		return []byte(`{"message":{"messageId":"` + id + `","role":"ROLE_USER","content":[{"text":"` + sweepText + `"}]},"configuration":{"blocking":true}}`)
	}
	var res struct {
		Task struct{ ID string }
	}
	_ = json.Unmarshal(do(http.MethodPost, "/v0.3/v1/message:send", msg("m-send")), &res)
	do(http.MethodPost, "/v0.3/v1/message:stream", msg("m-stream"))
	if res.Task.ID != "" {
		do(http.MethodGet, "/v0.3/v1/tasks/"+res.Task.ID, nil)
	}
}

// sweepGRPC runs the same calls over v0.3 gRPC; every error it gets must be
// a gRPC status (a behavior's fault, never a broken call).
func sweepGRPC(ctx context.Context, t *testing.T, c a2apb03.A2AServiceClient) {
	msg := func(id string) *a2apb03.SendMessageRequest {
		return &a2apb03.SendMessageRequest{
			Request:       &a2apb03.Message{MessageId: id, Role: a2apb03.Role_ROLE_USER, Content: []*a2apb03.Part{{Part: &a2apb03.Part_Text{Text: sweepText}}}},
			Configuration: &a2apb03.SendMessageConfiguration{Blocking: true}}
	}
	isStatus := func(call string, err error) {
		if _, ok := status.FromError(err); err != nil && !ok {
			t.Errorf("%s: not a gRPC status: %v", call, err)
		}
	}
	res, err := c.SendMessage(ctx, msg("m-send"))
	isStatus("SendMessage", err)
	s, err := c.SendStreamingMessage(ctx, msg("m-stream"))
	isStatus("SendStreamingMessage", err)
	for err == nil {
		_, err = s.Recv()
	}
	if err != io.EOF {
		isStatus("SendStreamingMessage's stream", err)
	}
	if id := res.GetTask().GetId(); id != "" {
		_, err := c.GetTask(ctx, &a2apb03.GetTaskRequest{Name: "tasks/" + id})
		isStatus("GetTask", err)
	}
}

// TestGRPC03EveryBehavior applies every behavior of the catalogue, at its
// defaults, to a v0.3 agent and runs the same calls over v0.3 HTTP+JSON and
// over v0.3 gRPC, each on a server of its own with the same seed. Every
// call ends (a hung one at the caller's deadline), every gRPC error is a
// status, the servers close with no goroutine left (TestMain), and a
// protocol behavior (lifecycle, stream, push, card: not a transport fault,
// which has a meaning per binding) leaves the same decisions, events and
// answers in the journal over both: it acts unchanged over gRPC.
func TestGRPC03EveryBehavior(t *testing.T) {
	t.Parallel()
	reg := behaviors.Catalogue()
	for _, name := range reg.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rig := func() (*harness, *behaviors.Scoped) {
				b, err := reg.Parse(name)
				require.NoError(t, err)
				h := start(t, server.Config{Seed: 33, StepDelay: -1, GRPC: true,
					Agents: []server.AgentConfig{{Name: "main", Card: testCard(wire.V03, true), Behaviors: []behaviors.Behavior{b}}}})
				h.streamTimeout = 2 * time.Second
				return h, b
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			rest, b := rig()
			sweepREST(ctx, rest)
			ctx2, cancel2 := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel2()
			g, _ := rig()
			sweepGRPC(ctx2, t, grpc03Client(t, g))
			if strings.HasSuffix(reflect.TypeOf(b.Behavior).Elem().PkgPath(), "/behaviors/transport") {
				return
			}
			// Closed, the servers have journaled all they will: a stream
			// the client's deadline cut is withheld once its handler sees it.
			require.NoError(t, rest.srv.Close())
			require.NoError(t, g.srv.Close())
			got, want := projectJournal(g.srv), projectJournal(rest.srv)
			require.NotEmpty(t, want, "the HTTP+JSON run journaled nothing to compare")
			if !reflect.DeepEqual(got, want) {
				t.Errorf("over gRPC the journal says\n  %s\nover HTTP+JSON\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		})
	}
}
