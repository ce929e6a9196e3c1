package scenario

import (
	"errors"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server"
)

// Loader returns the server.ScenarioLoader the control API uses to build
// agents from cards, timelines and scenario fragments (POST
// /_a2amock/agents): Parse then Config, with behaviors resolved in registry
// (nil means behaviors.Catalogue()). Problems come back as
// server.FieldErrors, each with its path in the document.
func Loader(registry *behaviors.Registry) server.ScenarioLoader {
	return func(doc []byte) (server.Config, error) {
		s, err := Parse(doc, "scenario")
		if err == nil {
			var cfg server.Config
			if cfg, err = s.Config(registry); err == nil {
				return cfg, nil
			}
		}
		var se *Error
		if !errors.As(err, &se) {
			return server.Config{}, err
		}
		out := make(server.FieldErrors, len(se.Problems))
		for i, p := range se.Problems {
			out[i] = server.FieldError{Field: p.Path, Message: p.Message, Line: p.Line, Column: p.Column}
		}
		return server.Config{}, out
	}
}
