package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/server/internal/httpbind"
)

// MaxRuntimeAgents bounds the agents the control API may create on one
// server, so a runaway suite cannot grow it without end.
const MaxRuntimeAgents = 10_000

// roster holds the agents created at run time. The configured agents
// (Server.agents, Server.byName) never change after New, so requests read
// them without a lock; run-time agents are looked up under a read lock.
type roster struct {
	mu     sync.RWMutex
	byName map[string]*agent
	order  []*agent
	made   int
}

// FieldError is one problem with a field of a control-API request body:
// Field is its path (e.g. card.skills[0].id).
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
	// Line and Column locate the problem in a scenario text, when known.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
}

// FieldErrors is every problem found in a body; a ScenarioLoader returns it
// so that the control API names the fields at fault.
type FieldErrors []FieldError

// Error renders one problem per line.
func (fe FieldErrors) Error() string {
	lines := make([]string, len(fe))
	for i, e := range fe {
		lines[i] = e.Field + ": " + e.Message
	}
	return strings.Join(lines, "\n")
}

// ScenarioLoader reads a scenario document (YAML or JSON, the format of
// package scenario) into a server configuration. POST /_a2amock/agents uses
// it for cards, timelines and scenario fragments; without one, agents are
// created from a name and behavior specs only. Package scenario sets it on
// the configurations it builds (scenario.Loader).
type ScenarioLoader func(doc []byte) (Config, error)

// lookupAgent finds a configured or run-time agent by name.
func (s *Server) lookupAgent(name string) (*agent, bool) {
	if a, ok := s.byName[name]; ok {
		return a, true
	}
	s.roster.mu.RLock()
	a, ok := s.roster.byName[name]
	s.roster.mu.RUnlock()
	return a, ok
}

// allAgents lists the configured agents, then the run-time ones.
func (s *Server) allAgents() []*agent {
	s.roster.mu.RLock()
	defer s.roster.mu.RUnlock()
	out := make([]*agent, 0, len(s.agents)+len(s.roster.order))
	return append(append(out, s.agents...), s.roster.order...)
}

var agentNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// AddAgent hosts a new agent at /agents/{name}/ while the server runs, with
// its own task store, behaviors and journal view. The name must be free
// and be 1-64 letters, digits, '.', '_' or '-'.
func (s *Server) AddAgent(ac AgentConfig) error {
	if !agentNameRE.MatchString(ac.Name) {
		return FieldErrors{{Field: "name", Message: fmt.Sprintf("%q is not an agent name: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit", ac.Name)}}
	}
	if s.closed.Load() {
		return errors.New("the server is closed")
	}
	s.roster.mu.Lock()
	defer s.roster.mu.Unlock()
	if _, dup := s.byName[ac.Name]; dup {
		return errAgentExists
	}
	if _, dup := s.roster.byName[ac.Name]; dup {
		return errAgentExists
	}
	if len(s.roster.order) >= MaxRuntimeAgents {
		return errTooManyAgents
	}
	s.roster.made++
	a, err := newAgent(s, ac, len(s.cfg.Agents)+s.roster.made)
	if err != nil {
		return FieldErrors{{Field: "card", Message: err.Error()}}
	}
	a.dynamic = true
	a.journalFrom.Store(s.journal.LastSeq())
	if s.roster.byName == nil {
		s.roster.byName = map[string]*agent{}
	}
	s.roster.byName[ac.Name] = a
	s.roster.order = append(s.roster.order, a)
	return nil
}

var (
	errAgentExists   = errors.New("an agent of that name exists")
	errTooManyAgents = fmt.Errorf("the server already hosts %d run-time agents; remove some first", MaxRuntimeAgents)
	errNoSuchAgent   = errors.New("no agent of that name")
	errStaticAgent   = errors.New("the agent was configured at start; only agents created through the control API can be removed")
)

// RemoveAgent removes an agent created by AddAgent: its open streams end,
// sends waiting on its tasks return, its players stop and its tasks are
// forgotten. Its journal entries stay.
func (s *Server) RemoveAgent(name string) error {
	s.roster.mu.Lock()
	a, ok := s.roster.byName[name]
	if !ok {
		s.roster.mu.Unlock()
		if _, static := s.byName[name]; static {
			return errStaticAgent
		}
		return errNoSuchAgent
	}
	delete(s.roster.byName, name)
	s.roster.order = slices.DeleteFunc(s.roster.order, func(x *agent) bool { return x == a })
	s.metrics.Forget(name)
	s.roster.mu.Unlock()
	a.stop()
	a.reset()
	return nil
}

// agentRequest is the body of POST /_a2amock/agents.
type agentRequest struct {
	Name          string          `json:"name"`
	Card          json.RawMessage `json:"card"`
	Behaviors     json.RawMessage `json:"behaviors"`
	Timelines     json.RawMessage `json:"timelines"`
	Scenario      string          `json:"scenario"`
	ScenarioAgent string          `json:"scenarioAgent"`
}

// agentJSON describes an agent in the control API's answers.
type agentJSON struct {
	Name      string   `json:"name"`
	URL       string   `json:"url"`
	CardURL   string   `json:"cardUrl"`
	Dynamic   bool     `json:"dynamic"`
	Dialect   string   `json:"dialect"`
	Skills    []string `json:"skills"`
	Behaviors []string `json:"behaviors"`
}

func (s *Server) describeAgent(r *http.Request, a *agent) agentJSON {
	base := origin(r) + s.AgentPath(a.name)
	out := agentJSON{Name: a.name, URL: base + "/", CardURL: base + cardPath, Dynamic: a.dynamic,
		Dialect: string(a.card.Dialect), Skills: []string{}, Behaviors: []string{}}
	for _, sk := range a.card.Skills {
		out.Skills = append(out.Skills, sk.ID)
	}
	out.Behaviors = append(out.Behaviors, a.bhv.Load().Texts()...)
	return out
}

// agentRoutes serves the agents created per test: POST, GET and DELETE
// /_a2amock/agents[/{name}], and the metrics and OpenAPI endpoints.
func (s *Server) agentRoutes(g *echo.Group) {
	g.GET("/agents", func(c echo.Context) error {
		out := []agentJSON{}
		for _, a := range s.allAgents() {
			out = append(out, s.describeAgent(c.Request(), a))
		}
		return c.JSON(http.StatusOK, map[string]any{"agents": out})
	})
	g.GET("/agents/:name", func(c echo.Context) error {
		a, ok := s.lookupAgent(c.Param("name"))
		if !ok {
			return unknownAgent(c, s, c.Param("name"))
		}
		return c.JSON(http.StatusOK, s.describeAgent(c.Request(), a))
	})
	g.DELETE("/agents/:name", func(c echo.Context) error {
		name := c.Param("name")
		switch err := s.RemoveAgent(name); {
		case errors.Is(err, errNoSuchAgent):
			return unknownAgent(c, s, name)
		case errors.Is(err, errStaticAgent):
			return writeFieldError(c, http.StatusConflict, "FAILED_PRECONDITION", "name", fmt.Sprintf("agent %q %v", name, strings.TrimPrefix(err.Error(), "the agent ")))
		}
		return c.NoContent(http.StatusNoContent)
	})
	g.POST("/agents", s.createAgent)
	g.GET("/metrics", s.serveMetrics)
	g.GET("/openapi.json", func(c echo.Context) error {
		return c.Blob(http.StatusOK, "application/json", OpenAPI())
	})
}

func (s *Server) createAgent(c echo.Context) error {
	r := c.Request()
	if e := httpbind.CheckContentType(r); e != nil {
		return fieldError(c, http.StatusUnsupportedMediaType, "body", e.Message)
	}
	raw, e := binding.ReadBody(r, s.cfg.MaxBodyBytes)
	if e != nil {
		status := http.StatusBadRequest
		if e.HTTPStatus != 0 {
			status = e.HTTPStatus
		}
		return fieldError(c, status, "body", e.Message)
	}
	var in agentRequest
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return fieldError(c, http.StatusBadRequest, "body", "the body must be a JSON object {name, card, behaviors, timelines, scenario, scenarioAgent}, not null")
	}
	if len(bytes.TrimSpace(raw)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			return fieldError(c, http.StatusBadRequest, jsonErrorField(err), "the body must be a JSON object {name, card, behaviors, timelines, scenario, scenarioAgent}: "+err.Error())
		}
		if dec.More() {
			return fieldError(c, http.StatusBadRequest, "body", "the body holds more than one JSON value")
		}
	}
	ac, ferr := s.agentConfigFrom(&in)
	if ferr != nil {
		return answerFieldErrors(c, http.StatusBadRequest, ferr)
	}
	err := s.AddAgent(ac)
	for try := 0; in.Name == "" && errors.Is(err, errAgentExists) && try < 100; try++ {
		// A concurrent create took the generated name first.
		ac.Name = s.freshAgentName()
		err = s.AddAgent(ac)
	}
	var fe FieldErrors
	switch {
	case errors.As(err, &fe):
		return answerFieldErrors(c, http.StatusBadRequest, fe)
	case errors.Is(err, errAgentExists):
		return fieldError(c, http.StatusConflict, "name", fmt.Sprintf("an agent named %q exists; delete it first or choose another name", ac.Name))
	case errors.Is(err, errTooManyAgents):
		return fieldError(c, http.StatusConflict, "name", err.Error())
	case err != nil:
		return fieldError(c, http.StatusServiceUnavailable, "body", err.Error())
	}
	a, _ := s.lookupAgent(ac.Name)
	if a == nil { // removed already by a concurrent DELETE
		return unknownAgent(c, s, ac.Name)
	}
	desc := s.describeAgent(r, a)
	c.Response().Header().Set("Location", controlPrefix+"/agents/"+ac.Name)
	return c.JSON(http.StatusCreated, desc)
}

// agentConfigFrom builds the configuration of a run-time agent from a POST
// body; nothing is created when it reports a problem.
func (s *Server) agentConfigFrom(in *agentRequest) (AgentConfig, FieldErrors) {
	name := in.Name
	if name == "" {
		name = s.freshAgentName()
	} else if !agentNameRE.MatchString(name) {
		return AgentConfig{}, FieldErrors{{Field: "name", Message: fmt.Sprintf("%q is not an agent name: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit", name)}}
	}
	present := func(r json.RawMessage) bool { return len(r) > 0 && !bytes.Equal(bytes.TrimSpace(r), []byte("null")) }
	var specs []string
	structured := false
	if present(in.Behaviors) {
		var list []json.RawMessage
		if err := json.Unmarshal(in.Behaviors, &list); err != nil {
			return AgentConfig{}, FieldErrors{{Field: "behaviors", Message: "behaviors must be a list of specs (\"name:key=value,...\") or {name, params, scope} objects"}}
		}
		for i, item := range list {
			var text string
			if err := json.Unmarshal(item, &text); err != nil {
				structured = true
				continue
			}
			if text == "" {
				return AgentConfig{}, FieldErrors{{Field: fmt.Sprintf("behaviors[%d]", i), Message: "a behavior spec is empty"}}
			}
			specs = append(specs, text)
		}
	}
	needLoader := in.Scenario != "" || present(in.Card) || present(in.Timelines) || structured
	if needLoader && s.cfg.Scenarios == nil {
		field := "scenario"
		switch {
		case present(in.Card):
			field = "card"
		case present(in.Timelines):
			field = "timelines"
		case structured:
			field = "behaviors"
		}
		return AgentConfig{}, FieldErrors{{Field: field, Message: "this server was built without a scenario loader (server.Config.Scenarios): give a name and behavior specs only"}}
	}
	if in.ScenarioAgent != "" && in.Scenario == "" {
		return AgentConfig{}, FieldErrors{{Field: "scenarioAgent", Message: "scenarioAgent picks an agent of scenario, which is not given"}}
	}
	if !needLoader {
		ac := AgentConfig{Name: name}
		bs, err := s.ParseBehaviors(specs)
		if err != nil {
			return AgentConfig{}, behaviorFieldErrors(err)
		}
		ac.Behaviors = bs
		return ac, nil
	}
	if in.Scenario != "" {
		if present(in.Card) || present(in.Timelines) {
			field := "card"
			if !present(in.Card) {
				field = "timelines"
			}
			return AgentConfig{}, FieldErrors{{Field: field, Message: "give either scenario (the agent comes from it) or card and timelines, not both"}}
		}
		cfg, err := s.cfg.Scenarios([]byte(in.Scenario))
		if err != nil {
			return AgentConfig{}, prefixFieldErrors(err, "scenario", "scenario")
		}
		pick := 0
		if in.ScenarioAgent != "" {
			pick = slices.IndexFunc(cfg.Agents, func(ac AgentConfig) bool { return ac.Name == in.ScenarioAgent })
			if pick < 0 {
				names := make([]string, len(cfg.Agents))
				for i, ac := range cfg.Agents {
					names[i] = ac.Name
				}
				return AgentConfig{}, FieldErrors{{Field: "scenarioAgent", Message: fmt.Sprintf("the scenario has no agent %q (agents: %s)", in.ScenarioAgent, strings.Join(names, ", "))}}
			}
		}
		ac := cfg.Agents[pick]
		ac.Name = name
		if present(in.Behaviors) {
			extra, ferr := s.loadBehaviors(name, in.Behaviors, specs, structured)
			if ferr != nil {
				return AgentConfig{}, ferr
			}
			ac.Behaviors = append(ac.Behaviors, extra...)
		}
		return ac, nil
	}
	doc := map[string]any{"name": name}
	if present(in.Card) {
		doc["card"] = in.Card
	}
	if present(in.Timelines) {
		doc["timelines"] = in.Timelines
	}
	if present(in.Behaviors) {
		doc["behaviors"] = in.Behaviors
	}
	cfg, err := s.loadAgentDoc(doc)
	if err != nil {
		return AgentConfig{}, err
	}
	return cfg.Agents[0], nil
}

// loadBehaviors parses the behaviors of a body, through the scenario loader
// when some are structured.
func (s *Server) loadBehaviors(name string, raw json.RawMessage, specs []string, structured bool) ([]behaviors.Behavior, FieldErrors) {
	if !structured {
		bs, err := s.ParseBehaviors(specs)
		if err != nil {
			return nil, behaviorFieldErrors(err)
		}
		return bs, nil
	}
	cfg, ferr := s.loadAgentDoc(map[string]any{"name": name, "behaviors": raw})
	if ferr != nil {
		return nil, ferr
	}
	return cfg.Agents[0].Behaviors, nil
}

// loadAgentDoc runs one agent's fragment through the scenario loader, with
// the server's seed, and strips the "agents[0]." prefix from field paths.
func (s *Server) loadAgentDoc(agentDoc map[string]any) (Config, FieldErrors) {
	doc, err := json.Marshal(map[string]any{"server": map[string]any{"seed": s.cfg.Seed}, "agents": []any{agentDoc}})
	if err != nil {
		return Config{}, FieldErrors{{Field: "body", Message: err.Error()}}
	}
	cfg, err := s.cfg.Scenarios(doc)
	if err != nil {
		return Config{}, prefixFieldErrors(err, "body", "")
	}
	if len(cfg.Agents) != 1 {
		return Config{}, FieldErrors{{Field: "body", Message: "the scenario loader did not return one agent"}}
	}
	return cfg, nil
}

// prefixFieldErrors turns a loader's error into field errors: paths of a
// whole scenario document go under "scenario." (under is "scenario"), paths
// of a one-agent fragment lose their "agents[0]." prefix (under is "").
func prefixFieldErrors(err error, fallback, under string) FieldErrors {
	var fe FieldErrors
	if !errors.As(err, &fe) {
		return FieldErrors{{Field: fallback, Message: err.Error()}}
	}
	out := make(FieldErrors, len(fe))
	for i, e := range fe {
		f := e.Field
		line, col := e.Line, e.Column
		if under == "" {
			// Positions in a document composed from the body mean nothing
			// to the client.
			f = strings.TrimPrefix(strings.TrimPrefix(f, "agents[0]."), "agents[0]")
			line, col = 0, 0
		} else if f != "" {
			f = under + "." + f
		}
		if f == "" {
			f = fallback
		}
		out[i] = FieldError{Field: f, Message: e.Message, Line: line, Column: col}
	}
	return out
}

func behaviorFieldErrors(err error) FieldErrors {
	var out FieldErrors
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		field := "behaviors"
		msg := e.Error()
		if strings.HasPrefix(msg, "behaviors[") {
			if i := strings.Index(msg, "]"); i > 0 {
				field, msg = msg[:i+1], strings.TrimSpace(msg[i+1:])
			}
		}
		out = append(out, FieldError{Field: field, Message: msg})
	}
	return out
}

// answerFieldErrors answers with the first problem as the error and every
// problem in "errors".
func answerFieldErrors(c echo.Context, status int, fe FieldErrors) error {
	msg := fe[0].Message
	if fe[0].Line > 0 {
		msg = fmt.Sprintf("%s (line %d, column %d)", msg, fe[0].Line, fe[0].Column)
	}
	if len(fe) > 1 {
		msg = fmt.Sprintf("%s (and %d more problem(s); nothing was created)", msg, len(fe)-1)
	}
	body := map[string]any{"error": map[string]any{"code": status, "status": "INVALID_ARGUMENT", "message": msg, "field": fe[0].Field}, "errors": fe}
	if err := c.JSON(status, body); err != nil {
		return err
	}
	return errAnswered
}

// jsonErrorField names the field a JSON decoding error is about.
func jsonErrorField(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return te.Field
	}
	if msg := err.Error(); strings.HasPrefix(msg, "json: unknown field ") {
		if f, e := strconv.Unquote(strings.TrimPrefix(msg, "json: unknown field ")); e == nil {
			return f
		}
	}
	return "body"
}

// freshAgentName returns a generated name no agent has.
func (s *Server) freshAgentName() string {
	s.roster.mu.RLock()
	n := s.roster.made
	s.roster.mu.RUnlock()
	for {
		n++
		name := "agent-" + strconv.Itoa(n)
		if _, taken := s.lookupAgent(name); !taken {
			return name
		}
	}
}
