package control

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server/internal/acted"
	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/server/internal/httpbind"
)

// behaviorsBody is the JSON of GET and PUT /_a2amock/behaviors.
type behaviorsBody struct {
	Agent     string   `json:"agent"`
	Behaviors []string `json:"behaviors"`
	// Stats says, per behavior, how many requests it acted on and how many
	// it skipped (out of scope), by scope key: "why didn't it fire".
	Stats []acted.Stat `json:"stats"`
}

// catalogueParam and catalogueEntry are the JSON of GET /_a2amock/catalogue.
type catalogueParam struct {
	Key     string `json:"key"`
	Type    string `json:"type"`
	Default string `json:"default"`
	Doc     string `json:"doc,omitempty"`
}

type catalogueEntry struct {
	Name   string           `json:"name"`
	Doc    string           `json:"doc"`
	Params []catalogueParam `json:"params"`
}

// behaviorRoutes serves the run-time switch of behaviors and the catalogue.
func (api *API) behaviorRoutes(g *methodRouter) {
	lookup := func(c echo.Context) (Agent, error) {
		name := c.QueryParam("agent")
		if name == "" {
			return api.host.Root(), nil
		}
		if a, ok := api.host.Lookup(name); ok {
			return a, nil
		}
		return nil, controlFieldError(c, http.StatusNotFound, "NOT_FOUND", "agent", fmt.Sprintf("no agent named %q", name), api.agentNames())
	}
	list := func(c echo.Context, a Agent) error {
		reg := api.host.Registry()
		set := a.Behaviors()
		out := behaviorsBody{Agent: a.Name(), Behaviors: []string{}, Stats: set.Stats()}
		for _, b := range set.List() {
			out.Behaviors = append(out.Behaviors, acted.SpecText(reg, b))
		}
		return c.JSON(http.StatusOK, out)
	}
	g.GET("/behaviors", func(c echo.Context) error {
		a, err := lookup(c)
		if a == nil {
			return err
		}
		return list(c, a)
	})
	g.PUT("/behaviors", func(c echo.Context) error {
		a, err := lookup(c)
		if a == nil {
			return err
		}
		// As POST /agents: a form or text body is a mistake to point out,
		// not a JSON document to guess at.
		if e := httpbind.CheckContentType(c.Request()); e != nil {
			return fieldError(c, http.StatusUnsupportedMediaType, "body", e.Message)
		}
		raw, e := binding.ReadBody(c.Request(), api.host.MaxBodyBytes())
		if e != nil {
			return controlFieldError(c, http.StatusBadRequest, "INVALID_ARGUMENT", "body", e.Message, nil)
		}
		var in struct {
			Behaviors *[]string `json:"behaviors"`
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil || in.Behaviors == nil {
			return controlFieldError(c, http.StatusBadRequest, "INVALID_ARGUMENT", "behaviors",
				`the body must be {"behaviors": ["name:key=value,...", ...]}`, nil)
		}
		bs, perr := api.host.ParseBehaviors(*in.Behaviors)
		if perr != nil {
			var details []string
			if j, ok := perr.(interface{ Unwrap() []error }); ok {
				for _, e := range j.Unwrap() {
					details = append(details, e.Error())
				}
			} else {
				details = []string{perr.Error()}
			}
			return controlFieldError(c, http.StatusBadRequest, "INVALID_ARGUMENT", BehaviorFieldErrors(perr)[0].Field,
				fmt.Sprintf("%d of %d behaviors did not parse; nothing was changed", len(details), len(*in.Behaviors)), details)
		}
		if fe := StrayAgentScopes(a.Name(), bs, func(i int) string { return fmt.Sprintf("behaviors[%d]", i) }); fe != nil {
			details := make([]string, len(fe))
			for i, e := range fe {
				details[i] = e.Field + " " + e.Message
			}
			return controlFieldError(c, http.StatusBadRequest, "INVALID_ARGUMENT", fe[0].Field,
				fmt.Sprintf("%d of %d behaviors would never act; nothing was changed", len(fe), len(*in.Behaviors)), details)
		}
		a.SetBehaviors(bs)
		return list(c, a)
	})
	g.DELETE("/behaviors", func(c echo.Context) error {
		a, err := lookup(c)
		if a == nil {
			return err
		}
		a.SetBehaviors(nil)
		return list(c, a)
	})
	g.GET("/catalogue", func(c echo.Context) error {
		reg := api.host.Registry()
		out := map[string]any{"scopeKeys": behaviors.ScopeKeys}
		entries := []catalogueEntry{}
		for _, sp := range reg.Specs() {
			e := catalogueEntry{Name: sp.Name, Doc: sp.Doc, Params: []catalogueParam{}}
			for _, p := range sp.Params() {
				e.Params = append(e.Params, catalogueParam{Key: p.Key, Type: p.Type, Default: p.Default, Doc: p.Doc})
			}
			entries = append(entries, e)
		}
		out["behaviors"] = entries
		return c.JSON(http.StatusOK, out)
	})
}
