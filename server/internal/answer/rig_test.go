package answer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/engine"
	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/journal"
	"github.com/a2amock/a2amock/server/internal/acted"
	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/server/internal/cardserve"
	"github.com/a2amock/a2amock/server/internal/entries"
	"github.com/a2amock/a2amock/server/internal/faultwriter"
	"github.com/a2amock/a2amock/server/internal/grpcbind"
	"github.com/a2amock/a2amock/server/internal/httpbind"
	"github.com/a2amock/a2amock/server/internal/metrics"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// The tests drive Server through the real bindings (httpbind's JSON-RPC
// and HTTP+JSON, grpcbind's gRPC) with an httptest recorder: each
// binding words the errors this package hands it, and the tests check
// that the answer a client gets is the spec's for that binding. The agent
// is a testAgent over a real engine and card server: Agent returns those
// concrete types, and faking them would test the fakes.

// agentName is the test agent's name, as its journal entries carry it.
const agentName = "a"

// testAgent is an Agent as package server builds one (its agent type):
// behaviors parsed from spec texts and applied as a set, over the
// agent's own engine and card server.
type testAgent struct {
	eng      *engine.Agent
	cards    cardserve.Agent
	extended *cards.Card
	set      *acted.Set
	enforce  bool
	dynamic  bool
	ctx      context.Context
	// exchanged, when set, is called with the context of each request
	// the behaviors see.
	exchanged func(ctx context.Context)
}

func (a *testAgent) Gate(op wire.Op) *wire.Error        { return a.eng.Gate(op) }
func (a *testAgent) CardDialect() wire.Dialect          { return a.cards.Card.Dialect }
func (a *testAgent) TaskDialect(id string) wire.Dialect { return a.eng.TaskDialect(id) }
func (a *testAgent) Name() string                       { return agentName }
func (a *testAgent) Engine() *engine.Agent              { return a.eng }
func (a *testAgent) Cards() *cardserve.Agent            { return &a.cards }
func (a *testAgent) ExtendedCard() *cards.Card          { return a.extended }
func (a *testAgent) Context() context.Context           { return a.ctx }
func (a *testAgent) Dynamic() bool                      { return a.dynamic }
func (a *testAgent) EnforcesAuth() bool                 { return a.enforce }
func (a *testAgent) Exchange(op wire.Op, req *wire.Request, in behaviors.Incoming) (*behaviors.Exchange, acted.Report) {
	if a.exchanged != nil {
		a.exchanged(in.Context())
	}
	call := a.eng.NextCall(op)
	x := &behaviors.Exchange{Agent: agentName, Op: op, Request: req, HTTP: in, Card: a.cards.Card, Call: call,
		Now: time.Now(), Clock: timeline.RealClock{}, Rand: rand.New(rand.NewPCG(1, uint64(call)))}
	if req != nil {
		x.Dialect, x.Binding = req.Dialect, req.Binding
		x.Skill = a.eng.SkillFor(req.Message)
	}
	return x, a.set.Apply(x)
}

// testHost is the server's core as the bindings see it: it hands every
// decoded request to the Server under test. Delays pass at once (Wait),
// unless the request's context has ended.
type testHost struct{ s *Server }

func (h testHost) Serve(w http.ResponseWriter, r *http.Request, a binding.Agent, base string, req *wire.Request, rp binding.Reply) error {
	return h.s.Request(w, r, a.(*testAgent), base, req, rp)
}
func (h testHost) Refused(w http.ResponseWriter, r *http.Request, a binding.Agent, req *wire.Request, e *wire.Error) {
	h.s.Rec.Refused(w, r, agentName, req, e)
}
func (h testHost) CheckVersion(*http.Request, wire.Dialect) *wire.Error { return nil }
func (h testHost) MaxBodyBytes() int64                                  { return 1 << 20 }
func (h testHost) Clock() timeline.Clock                                { return timeline.RealClock{} }
func (h testHost) Wait(ctx context.Context, _ time.Duration) bool       { return ctx.Err() == nil }
func (h testHost) TenantAgent(string) (binding.Agent, string, bool)     { return nil, "", false }
func (h testHost) AgentNames() []string                                 { return []string{agentName} }

// agentSpec configures a rig's agent.
type agentSpec struct {
	// behaviors are spec texts of the catalogue ("skip-working:op=send").
	behaviors []string
	// schemes are the card's securitySchemes; enforce makes the agent
	// require them (AgentConfig.EnforceAuth).
	schemes map[string]cards.SecurityScheme
	enforce bool
	// authRequired makes every skill's timeline stop in auth-required.
	authRequired bool
	// dynamic agents end with ctx (nil: the test's context), their
	// requests with them.
	dynamic bool
	ctx     context.Context
	// maxPartBytes bounds a message part (0: 1 MiB).
	maxPartBytes int
	// extended, when not empty, declares an extended card of that name.
	extended string
}

// rig is a Server answering for one agent, its journal and metrics.
type rig struct {
	t       *testing.T
	s       *Server
	agent   *testAgent
	journal *journal.Journal
	metrics *metrics.Store
	grpc    *grpcbind.Binding
}

func newRig(t *testing.T, spec agentSpec) *rig {
	t.Helper()
	card := cards.Generate(agentName, 7)
	card.SecuritySchemes = spec.schemes
	var tls map[string]timeline.Timeline
	if spec.authRequired {
		tls = map[string]timeline.Timeline{}
		for _, sk := range card.Skills {
			tls[sk.ID] = timeline.Timeline{{Kind: timeline.StepState, State: wire.StateSubmitted}, {Kind: timeline.StepState, State: wire.StateAuthRequired}}
		}
	}
	var extended *cards.Card
	if spec.extended != "" {
		card.Capabilities.ExtendedAgentCard = true
		extended = card.Clone()
		extended.Name = spec.extended
	}
	ctx := spec.ctx
	if ctx == nil {
		ctx = t.Context()
	}
	eng, err := engine.New(engine.Config{Name: agentName, Card: card, Extended: extended, Timelines: tls, Seed: 7, Context: ctx})
	require.NoError(t, err)
	reg := behaviors.Catalogue()
	var bs []behaviors.Behavior
	for _, text := range spec.behaviors {
		b, err := reg.Parse(text)
		require.NoError(t, err, text)
		bs = append(bs, b)
	}
	a := &testAgent{eng: eng, extended: extended, set: acted.NewSet(reg, bs), enforce: spec.enforce, dynamic: spec.dynamic, ctx: ctx,
		cards: cardserve.Agent{Card: card, Signer: cardserve.Signer{Seed: 7, Name: agentName},
			Interfaces: cardserve.Interfaces{Declares: func(wire.Binding) bool { return true }}}}
	j, m := journal.New(journal.DefaultRetention), &metrics.Store{}
	maxPart := spec.maxPartBytes
	if maxPart == 0 {
		maxPart = 1 << 20
	}
	s := &Server{Rec: &entries.Writer{Journal: j, Metrics: m, Clock: timeline.RealClock{}, MaxBodyBytes: 1 << 20},
		Ctx: t.Context(), KeepAlive: time.Minute, MaxPartBytes: maxPart, MaxMessageBytes: 1 << 20}
	s.Host = testHost{s}
	return &rig{t: t, s: s, agent: a, journal: j, metrics: m, grpc: grpcbind.New(s.Host)}
}

// bindings are the three every test of a request runs over.
var bindings = []wire.Binding{wire.BindingJSONRPC, wire.BindingREST, wire.BindingGRPC}

// message is a user message; taskID continues a task when not empty.
type message struct {
	taskID string
	text   string
}

// send sends m as SendMessage over binding b with the headers hdr (name,
// value pairs) and returns the recorded answer.
func (rg *rig) send(b wire.Binding, m message, hdr ...string) *httptest.ResponseRecorder {
	rg.t.Helper()
	if m.text == "" {
		m.text = "hello"
	}
	msg := map[string]any{"messageId": "m-" + strconv.Itoa(int(rg.journal.LastSeq())), "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": m.text}}}
	if m.taskID != "" {
		msg["taskId"] = m.taskID
	}
	switch b {
	case wire.BindingJSONRPC:
		body := rg.json(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": map[string]any{"message": msg}})
		return rg.call(b, http.MethodPost, "/", body, hdr)
	case wire.BindingREST:
		return rg.call(b, http.MethodPost, "/message:send", rg.json(map[string]any{"message": msg}), hdr)
	}
	pm := &a2apb.Message{MessageId: msg["messageId"].(string), TaskId: m.taskID, Role: a2apb.Role_ROLE_USER,
		Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: m.text}}}}
	pb, err := proto.Marshal(&a2apb.SendMessageRequest{Message: pm})
	require.NoError(rg.t, err)
	return rg.call(b, http.MethodPost, "SendMessage", a2apb.AppendMessage(nil, pb), hdr)
}

func (rg *rig) json(v any) []byte {
	b, err := json.Marshal(v)
	require.NoError(rg.t, err)
	return b
}

// call makes one request of binding b at path (a gRPC method's name, for
// gRPC) and returns the recorded answer.
func (rg *rig) call(b wire.Binding, method, path string, body []byte, hdr []string) *httptest.ResponseRecorder {
	rg.t.Helper()
	w := httptest.NewRecorder()
	var err error
	switch b {
	case wire.BindingJSONRPC:
		r := rg.request(method, "/agents/a/", body, "application/json", hdr)
		err = httpbind.ServeJSONRPC(rg.s.Host, w, r, rg.agent, "/agents/a")
	case wire.BindingREST:
		r := rg.request(method, "/agents/a"+path, body, "application/json", hdr)
		err = httpbind.ServeREST(rg.s.Host, w, r, rg.agent, "/agents/a", path)
	case wire.BindingGRPC:
		r := rg.request(method, a2apb.ServicePath+path, body, "application/grpc", hdr)
		r.ProtoMajor, r.ProtoMinor = 2, 0
		err = rg.grpc.Serve(w, r, rg.agent, "", a2apb.ServicePath+path)
	}
	requireAnswered(rg.t, err)
	return w
}

// requireAnswered fails t unless err, what answering returned, is nil or
// says that a transport fault wrote the answer in its place (the server
// ignores that error: the client got the fault).
func requireAnswered(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, faultwriter.ErrReplaced) {
		require.NoError(t, err)
	}
}

func (rg *rig) request(method, target string, body []byte, ct string, hdr []string) *http.Request {
	r := httptest.NewRequestWithContext(rg.t.Context(), method, target, bytes.NewReader(body))
	if body != nil {
		r.Header.Set("Content-Type", ct)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Add(hdr[i], hdr[i+1])
	}
	return r
}

// outcome is an answer as a client of binding b reads it: "200" for a
// result; for an error, the HTTP status and the JSON-RPC error code
// (JSON-RPC), the HTTP status and google.rpc.Status status (HTTP+JSON),
// or the gRPC status code's name (gRPC).
func outcome(t *testing.T, b wire.Binding, w *httptest.ResponseRecorder) string {
	t.Helper()
	if b == wire.BindingGRPC {
		st := w.Header().Get("Grpc-Status")
		if st == "" {
			st = w.Result().Trailer.Get("Grpc-Status")
		}
		n, err := strconv.Atoi(st)
		require.NoError(t, err, "grpc-status %q", st)
		if n == 0 {
			return "200"
		}
		return codes.Code(n).String()
	}
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &body), "%s", w.Body)
	if body.Error == nil {
		require.Equal(t, http.StatusOK, w.Code, "%s", w.Body)
		return "200"
	}
	var e struct {
		Code   int    `json:"code"`
		Status string `json:"status"`
	}
	require.NoError(t, json.Unmarshal(body.Error, &e))
	if b == wire.BindingJSONRPC {
		return strconv.Itoa(w.Code) + " " + strconv.Itoa(e.Code)
	}
	require.Equal(t, w.Code, e.Code, "the google.rpc.Status code is the HTTP status")
	return strconv.Itoa(w.Code) + " " + e.Status
}

// taskID is the id of the task a successful send answered with.
func taskID(t *testing.T, rg *rig) string {
	t.Helper()
	es := rg.journal.Filter(0, agentName, "", journal.EntryResponse)
	require.NotEmpty(t, es)
	last := es[len(es)-1]
	require.NotEmpty(t, last.TaskID, "the last response answered a task")
	return last.TaskID
}

// entries returns the journal's entries of kind k, in order.
func (rg *rig) entries(k journal.EntryKind) []journal.Entry {
	return rg.journal.Filter(0, agentName, "", k)
}

// metricsText is the metrics as GET /_a2amock/metrics writes them.
func (rg *rig) metricsText() string {
	var b strings.Builder
	require.NoError(rg.t, rg.metrics.Write(&b, nil, rg.journal))
	return b.String()
}

// recordingReply is a binding.Reply that keeps what it was asked to
// answer, for requests no binding would decode (package server's
// replies are the bindings').
type recordingReply struct {
	failed *wire.Error
	result *wire.Result
}

func (rp *recordingReply) Fail(_ http.ResponseWriter, e *wire.Error) error {
	rp.failed = e
	return nil
}
func (rp *recordingReply) AuthError(e *wire.Error) *wire.Error { return e }
func (rp *recordingReply) Result(_ http.ResponseWriter, _ wire.Op, res *wire.Result) error {
	rp.result = res
	return nil
}
func (rp *recordingReply) Framer() binding.Framer { return nil } // no streamed operation is sent
func (rp *recordingReply) Transport(h binding.Host, w http.ResponseWriter, r *http.Request) binding.Transport {
	return httpbind.NewTransport(h, w, r)
}
