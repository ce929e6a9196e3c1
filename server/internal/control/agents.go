package control

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/server/internal/httpbind"
	"github.com/a2amock/a2amock/server/internal/metrics"
	"github.com/labstack/echo/v4"
)

// AgentRequest is the body of POST /_a2amock/agents.
type AgentRequest struct {
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

func (api *API) describeAgent(r *http.Request, a Agent) agentJSON {
	base := httpbind.Origin(r) + api.host.AgentPath(a.Name())
	out := agentJSON{Name: a.Name(), URL: base + "/", CardURL: base + api.host.CardPath(), Dynamic: a.Dynamic(),
		Dialect: a.Dialect(), Skills: []string{}, Behaviors: []string{}}
	out.Skills = append(out.Skills, a.Skills()...)
	out.Behaviors = append(out.Behaviors, a.Behaviors().Texts()...)
	return out
}

// agentRoutes serves the agents created per test: POST, GET and DELETE
// /_a2amock/agents[/{name}], and the metrics and OpenAPI endpoints.
func (api *API) agentRoutes(g *methodRouter) {
	g.GET("/agents", func(c echo.Context) error {
		out := []agentJSON{}
		for _, a := range api.host.Agents() {
			out = append(out, api.describeAgent(c.Request(), a))
		}
		return c.JSON(http.StatusOK, map[string]any{"agents": out})
	})
	g.GET("/agents/:name", func(c echo.Context) error {
		a, ok := api.host.Lookup(c.Param("name"))
		if !ok {
			return api.unknownAgent(c, c.Param("name"))
		}
		return c.JSON(http.StatusOK, api.describeAgent(c.Request(), a))
	})
	g.DELETE("/agents/:name", func(c echo.Context) error {
		name := c.Param("name")
		switch err := api.host.RemoveAgent(name); {
		case errors.Is(err, ErrNoSuchAgent):
			return api.unknownAgent(c, name)
		case errors.Is(err, ErrStaticAgent):
			return writeFieldError(c, http.StatusConflict, "FAILED_PRECONDITION", "name", fmt.Sprintf("agent %q %v", name, strings.TrimPrefix(err.Error(), "the agent ")))
		}
		return c.NoContent(http.StatusNoContent)
	})
	g.POST("/agents", api.createAgent)
	g.GET("/metrics", api.serveMetrics)
	g.GET("/openapi.json", func(c echo.Context) error {
		return c.Blob(http.StatusOK, "application/json", api.host.OpenAPI())
	})
}

func (api *API) createAgent(c echo.Context) error {
	r := c.Request()
	if e := httpbind.CheckContentType(r); e != nil {
		return fieldError(c, http.StatusUnsupportedMediaType, "body", e.Message)
	}
	raw, e := binding.ReadBody(r, api.host.MaxBodyBytes())
	if e != nil {
		status := http.StatusBadRequest
		if e.HTTPStatus != 0 {
			status = e.HTTPStatus
		}
		return fieldError(c, status, "body", e.Message)
	}
	var in AgentRequest
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
	a, err := api.host.CreateAgent(&in)
	var fe FieldErrors
	switch {
	case errors.As(err, &fe):
		return answerFieldErrors(c, http.StatusBadRequest, fe)
	case errors.Is(err, ErrAgentExists):
		return fieldError(c, http.StatusConflict, "name", fmt.Sprintf("an agent named %q exists; delete it first or choose another name", in.Name))
	case errors.Is(err, ErrTooManyAgents):
		return fieldError(c, http.StatusConflict, "name", err.Error())
	case errors.Is(err, ErrNoSuchAgent): // removed already by a concurrent DELETE
		return api.unknownAgent(c, in.Name)
	case err != nil:
		return fieldError(c, http.StatusServiceUnavailable, "body", err.Error())
	}
	desc := api.describeAgent(r, a)
	c.Response().Header().Set("Location", Prefix+"/agents/"+a.Name())
	return c.JSON(http.StatusCreated, desc)
}

// serveMetrics is GET /_a2amock/metrics.
func (api *API) serveMetrics(c echo.Context) error {
	resp := c.Response()
	resp.Header().Set("Content-Type", metrics.ContentType)
	resp.WriteHeader(http.StatusOK)
	return api.host.WriteMetrics(resp)
}
