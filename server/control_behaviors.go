package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server/internal/acted"
	"github.com/a2amock/a2amock/server/internal/binding"
)

// defaultRegistry is built once: a Registry is only read after it is
// built, so every server without its own may share it.
var defaultRegistry = sync.OnceValue(behaviors.Catalogue)

// registry is the registry behaviors are parsed with at run time.
func (s *Server) registry() *behaviors.Registry {
	if s.cfg.Registry != nil {
		return s.cfg.Registry
	}
	return defaultRegistry()
}

// ParseBehaviors parses behavior specs ("name:key=value,...") with the
// server's registry. It reports every bad spec, not only the first, each
// with its index, so a CLI or a scenario file can be fixed in one go.
func (s *Server) ParseBehaviors(specs []string) ([]behaviors.Behavior, error) {
	reg := s.registry()
	out := make([]behaviors.Behavior, 0, len(specs))
	var errs []error
	for i, spec := range specs {
		b, err := reg.Parse(spec)
		if err != nil {
			errs = append(errs, fmt.Errorf("behaviors[%d] %q: %w", i, spec, err))
			continue
		}
		out = append(out, b)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

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

func controlError(c echo.Context, status int, rpcStatus, msg string, details []string) error {
	body := map[string]any{"error": map[string]any{"code": status, "status": rpcStatus, "message": msg}}
	if details != nil {
		body["errors"] = details
	}
	return c.JSON(status, body)
}

// behaviorRoutes serves the run-time switch of behaviors and the catalogue.
func (s *Server) behaviorRoutes(g *echo.Group) {
	lookup := func(c echo.Context) (*agent, error) {
		name := c.QueryParam("agent")
		if name == "" {
			return s.agents[0], nil
		}
		if a, ok := s.lookupAgent(name); ok {
			return a, nil
		}
		return nil, controlFieldError(c, http.StatusNotFound, "NOT_FOUND", "agent", fmt.Sprintf("no agent named %q", name), s.AgentNames())
	}
	list := func(c echo.Context, a *agent) error {
		reg := s.registry()
		out := behaviorsBody{Agent: a.name, Behaviors: []string{}, Stats: a.bhv.Load().Stats()}
		for _, b := range a.currentBehaviors() {
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
		raw, e := binding.ReadBody(c.Request(), s.cfg.MaxBodyBytes)
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
		bs, perr := s.ParseBehaviors(*in.Behaviors)
		if perr != nil {
			var details []string
			if j, ok := perr.(interface{ Unwrap() []error }); ok {
				for _, e := range j.Unwrap() {
					details = append(details, e.Error())
				}
			} else {
				details = []string{perr.Error()}
			}
			return controlFieldError(c, http.StatusBadRequest, "INVALID_ARGUMENT", behaviorFieldErrors(perr)[0].Field,
				fmt.Sprintf("%d of %d behaviors did not parse; nothing was changed", len(details), len(*in.Behaviors)), details)
		}
		a.setBehaviors(bs)
		return list(c, a)
	})
	g.DELETE("/behaviors", func(c echo.Context) error {
		a, err := lookup(c)
		if a == nil {
			return err
		}
		a.setBehaviors(nil)
		return list(c, a)
	})
	g.GET("/catalogue", func(c echo.Context) error {
		reg := s.registry()
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
