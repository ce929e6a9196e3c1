package control

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/journal"
	"github.com/a2amock/a2amock/server/internal/acted"
	"github.com/a2amock/a2amock/server/internal/wirecap"
)

// fakeAgent and fakeHost are a server with one agent, "a", and a journal.
type fakeAgent struct {
	set  *acted.Set
	from int64
}

func (a *fakeAgent) Name() string          { return "a" }
func (a *fakeAgent) Dynamic() bool         { return false }
func (a *fakeAgent) Dialect() string       { return "1.0" }
func (a *fakeAgent) Skills() []string      { return []string{"intake"} }
func (a *fakeAgent) Behaviors() *acted.Set { return a.set }
func (a *fakeAgent) SetBehaviors(bs []behaviors.Behavior) {
	a.set = acted.NewSet(behaviors.Catalogue(), bs)
}
func (a *fakeAgent) Reset()                   {}
func (a *fakeAgent) JournalFrom() int64       { return a.from }
func (a *fakeAgent) SetJournalFrom(seq int64) { a.from = seq }

type fakeHost struct {
	j     *journal.Journal
	agent *fakeAgent
	done  chan struct{}
}

func (h *fakeHost) Journal() *journal.Journal { return h.j }
func (h *fakeHost) Done() <-chan struct{}     { return h.done }
func (h *fakeHost) Root() Agent               { return h.agent }
func (h *fakeHost) Lookup(name string) (Agent, bool) {
	if name == "a" {
		return h.agent, true
	}
	return nil, false
}
func (h *fakeHost) Agents() []Agent                            { return []Agent{h.agent} }
func (h *fakeHost) Reset()                                     { h.j.Reset() }
func (h *fakeHost) Registry() *behaviors.Registry              { return behaviors.Catalogue() }
func (h *fakeHost) CreateAgent(*AgentRequest) (Agent, error)   { return nil, LimitError{Limit: 1} }
func (h *fakeHost) RemoveAgent(string) error                   { return ErrStaticAgent }
func (h *fakeHost) WriteMetrics(w io.Writer) error             { _, err := io.WriteString(w, "m 1\n"); return err }
func (h *fakeHost) Wire(int64, int64) (wirecap.Exchange, bool) { return wirecap.Exchange{}, false }
func (h *fakeHost) MaxBodyBytes() int64                        { return 1 << 10 }
func (h *fakeHost) AgentPath(name string) string               { return "/agents/" + name }
func (h *fakeHost) CardPath() string                           { return "/.well-known/agent-card.json" }
func (h *fakeHost) OpenAPI() []byte                            { return []byte(`{}`) }
func (h *fakeHost) ParseBehaviors(specs []string) ([]behaviors.Behavior, error) {
	var out []behaviors.Behavior
	for _, s := range specs {
		b, err := behaviors.Catalogue().Parse(s)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func newAPI(t *testing.T, cfg Config) (*echo.Echo, *fakeHost) {
	t.Helper()
	h := &fakeHost{j: journal.New(100), agent: &fakeAgent{}, done: make(chan struct{})}
	api := New(h, cfg)
	e := echo.New()
	api.Routes(e.Group(Prefix, api.Guard))
	return e, h
}

func call(e *echo.Echo, method, path, remote, body string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.RemoteAddr, r.Host = remote, "127.0.0.1:1"
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	e.ServeHTTP(w, r)
	return w
}

// TestGuard: loopback only without a token; with one, the bearer token
// from anywhere; with a front secret, only calls the front vouches for.
func TestGuard(t *testing.T) {
	t.Parallel()
	e, _ := newAPI(t, Config{})
	assert.Equal(t, http.StatusOK, call(e, "GET", Prefix+"/healthz", "127.0.0.1:5", "").Code)
	assert.Equal(t, http.StatusForbidden, call(e, "GET", Prefix+"/healthz", "10.0.0.9:5", "").Code)

	e, _ = newAPI(t, Config{Token: "tok"})
	assert.Equal(t, http.StatusUnauthorized, call(e, "GET", Prefix+"/healthz", "127.0.0.1:5", "").Code)
	assert.Equal(t, http.StatusOK, call(e, "GET", Prefix+"/healthz", "10.0.0.9:5", "", "Authorization", "Bearer tok").Code)

	e, _ = newAPI(t, Config{FrontSecret: "front"})
	assert.Equal(t, http.StatusForbidden, call(e, "GET", Prefix+"/healthz", "127.0.0.1:5", "").Code)
	assert.Equal(t, http.StatusOK, call(e, "GET", Prefix+"/healthz", "127.0.0.1:5", "", FrontHeader, "front").Code)
}

// TestJournalAndBehaviors reads the journal through the API (filtered,
// counted, limited), switches a behavior on and refuses a bad one, naming
// the field.
func TestJournalAndBehaviors(t *testing.T) {
	t.Parallel()
	e, h := newAPI(t, Config{})
	for range 3 {
		h.j.Add(journal.Entry{Agent: "a", Kind: journal.EntryRequest})
	}
	h.j.Add(journal.Entry{Agent: "b", Kind: journal.EntryCard})
	w := call(e, "GET", Prefix+"/journal?agent=a&kind=request&limit=2", "127.0.0.1:5", "")
	require.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "3", w.Header().Get(TotalCountHeader))
	var page struct{ Entries []journal.Entry }
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &page))
	assert.Len(t, page.Entries, 2)

	w = call(e, "GET", Prefix+"/journal?kind=nope", "127.0.0.1:5", "")
	assert.Equal(t, http.StatusBadRequest, w.Code)
	assert.Contains(t, w.Body.String(), `"field":"kind"`)

	w = call(e, "PUT", Prefix+"/behaviors?agent=a", "127.0.0.1:5", `{"behaviors":["skip-working"]}`, "Content-Type", "application/json")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Equal(t, []string{"skip-working"}, h.agent.set.Texts())

	w = call(e, "PUT", Prefix+"/behaviors?agent=zz", "127.0.0.1:5", `{"behaviors":[]}`, "Content-Type", "application/json")
	assert.Equal(t, http.StatusNotFound, w.Code)

	w = call(e, "POST", Prefix+"/agents", "127.0.0.1:5", `{"name":"x"}`, "Content-Type", "application/json")
	assert.Equal(t, http.StatusConflict, w.Code)
	assert.Contains(t, w.Body.String(), "already hosts 1 run-time agents")

	w = call(e, "DELETE", Prefix+"/agents/a", "127.0.0.1:5", "")
	assert.Equal(t, http.StatusConflict, w.Code)
}

// TestErrorHandler: a control path with no route is told where the routes
// are; other errors keep the status echo gave them, in the same shape.
func TestErrorHandler(t *testing.T) {
	t.Parallel()
	e := echo.New()
	e.HTTPErrorHandler = ErrorHandler
	w := call(e, "GET", Prefix+"/nope", "127.0.0.1:5", "")
	assert.Equal(t, http.StatusNotFound, w.Code)
	assert.Contains(t, w.Body.String(), Prefix+"/openapi.json")
	assert.Contains(t, w.Body.String(), `"status":"NOT_FOUND"`)
	w = call(e, "GET", "/elsewhere", "127.0.0.1:5", "")
	assert.Equal(t, http.StatusNotFound, w.Code)
	assert.NotContains(t, w.Body.String(), "openapi")
}
