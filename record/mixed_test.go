package record_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/internal/a2apb03"
	"github.com/a2amock/a2amock/record"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/sse"
	"github.com/a2amock/a2amock/wire"
)

// A recording without a card that mixes v0.3 HTTP+JSON and gRPC with
// v1.0 HTTP+JSON and gRPC: the replayed agent gets a generated v0.3 card
// (the engine serves v0.3's routes and service only for a v0.3 agent),
// and the v1.0 exchanges, served at the root for every agent, are played
// through the engine too: each client sees the recorded ids and states.
func TestReplayMixedDialectsWithoutCard(t *testing.T) {
	t.Parallel()
	card := &cards.Card{Name: "v03", Description: "A v0.3 agent.", Version: "1", Dialect: wire.V03,
		Capabilities: cards.Capabilities{Streaming: true}, DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Skills: []cards.Skill{{ID: "echo", Name: "Echo", Description: "Answers.", Tags: []string{"echo"}}}}
	_, proxy, proxied := grpcRig(t, server.AgentConfig{Name: "a", Card: card})
	hc := newClient(t).http
	session := func(host string) []string {
		var seen []string
		rest := func(method, path, version, body string) map[string]any {
			req, err := http.NewRequest(method, "http://"+host+path, strings.NewReader(body))
			require.NoError(t, err)
			if body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			req.Header.Set("A2A-Version", version)
			resp, err := hc.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, resp.StatusCode, "%s %s: %s", method, path, b)
			var v map[string]any
			require.NoError(t, json.Unmarshal(b, &v), "%s", b)
			return v
		}
		task := func(v map[string]any) string {
			if t, ok := v["task"].(map[string]any); ok {
				v = t
			}
			return str(v["id"]) + " " + str(dig(v, "status", "state"))
		}
		seen = append(seen, "v0.3 rest send "+task(rest(http.MethodPost, "/v0.3/v1/message:send", "0.3",
			`{"message":{"messageId":"m-r03","role":"ROLE_USER","content":[{"text":"hi"}]},"configuration":{"blocking":true}}`)))
		sent := task(rest(http.MethodPost, "/message:send", "1.0",
			`{"message":{"messageId":"m-r10","role":"ROLE_USER","parts":[{"text":"hi"}]}}`))
		seen = append(seen, "v1.0 rest send "+sent)
		id, _, _ := strings.Cut(sent, " ")
		seen = append(seen, "v1.0 rest get "+task(rest(http.MethodGet, "/tasks/"+id, "1.0", "")))
		req, err := http.NewRequest(http.MethodPost, "http://"+host+"/message:stream",
			strings.NewReader(`{"message":{"messageId":"m-s10","role":"ROLE_USER","parts":[{"text":"hi"}]}}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		s, err := sse.Do(t.Context(), hc, req)
		require.NoError(t, err)
		for ev, err := range s.Events() {
			require.NoError(t, err)
			var v map[string]any
			require.NoError(t, json.Unmarshal(ev.Data, &v), "%s", ev.Data)
			for k, inner := range v {
				seen = append(seen, "v1.0 rest event "+k+" "+str(dig(inner, "status", "state")))
			}
		}
		s.Close()

		conn, err := grpc.NewClient(host, grpc.WithTransportCredentials(insecure.NewCredentials()))
		require.NoError(t, err)
		defer conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		r03, err := a2apb03.NewA2AServiceClient(conn).SendMessage(ctx, &a2apb03.SendMessageRequest{
			Request:       &a2apb03.Message{MessageId: "m-g03", Role: a2apb03.Role_ROLE_USER, Content: []*a2apb03.Part{{Part: &a2apb03.Part_Text{Text: "hi"}}}},
			Configuration: &a2apb03.SendMessageConfiguration{Blocking: true}})
		require.NoError(t, err)
		seen = append(seen, "v0.3 grpc send "+r03.GetTask().GetId()+" "+r03.GetTask().GetStatus().GetState().String())
		c10 := a2apb.NewA2AServiceClient(conn)
		ctx10 := metadata.AppendToOutgoingContext(ctx, "a2a-version", "1.0")
		r10, err := c10.SendMessage(ctx10, &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m-g10", Role: a2apb.Role_ROLE_USER,
			Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "hi"}}}}})
		require.NoError(t, err)
		seen = append(seen, "v1.0 grpc send "+r10.GetTask().GetId()+" "+r10.GetTask().GetStatus().GetState().String())
		got, err := c10.GetTask(ctx10, &a2apb.GetTaskRequest{Id: r10.GetTask().GetId()})
		require.NoError(t, err)
		seen = append(seen, "v1.0 grpc get "+got.GetId()+" "+got.GetStatus().GetState().String())
		stream, err := c10.SendStreamingMessage(ctx10, &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m-gs10", Role: a2apb.Role_ROLE_USER,
			Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "hi"}}}}})
		require.NoError(t, err)
		evs, err := recvAll(stream)
		require.NoError(t, err)
		for _, ev := range evs {
			seen = append(seen, "v1.0 grpc event "+ev.String())
		}
		return seen
	}
	recorded := session(proxied)
	require.Len(t, recorded, 14, "%q", recorded)
	rec := proxy.Recording()
	for _, x := range rec.Exchanges {
		require.NotEqual(t, record.KindCard, x.Kind, "no card in the recording")
	}
	rp, replayed := replayGRPC(t, rec)
	served := newClient(t).do(mustGet(t, "http://"+replayed+"/.well-known/agent-card.json"))
	assert.Equal(t, "0.3.0", served["protocolVersion"], "a generated v0.3 card: %v", served)
	assert.Equal(t, recorded, session(replayed), "every client sees the recorded ids and states")
	var calls []string
	for _, e := range rp.Journal() {
		if e.Kind == server.EntryRequest && e.Op != "" {
			var hooks []string
			for _, a := range e.Acted {
				hooks = append(hooks, a.Behavior+"/"+a.Hook)
			}
			calls = append(calls, fmt.Sprintf("%s %s %s: %q %s", e.Dialect, e.Binding, e.Op, e.Detail, strings.Join(hooks, " ")))
		}
	}
	assert.Equal(t, []string{
		`0.3 HTTP+JSON send: "" replay/decide replay/plan replay/result`,
		`1.0 HTTP+JSON send: "" replay/decide replay/plan replay/result`,
		`1.0 HTTP+JSON get-task: "" replay/result`,
		`1.0 HTTP+JSON stream: "" replay/decide replay/plan replay/stream-event`,
		`0.3 GRPC send: "" replay/decide replay/plan replay/result`,
		`1.0 GRPC send: "" replay/decide replay/plan replay/result`,
		`1.0 GRPC get-task: "" replay/result`,
		`1.0 GRPC stream: "" replay/decide replay/plan replay/stream-event`,
	}, calls, "every exchange played through the engine, none as recorded bytes")
}
