package server

import (
	"errors"
	"fmt"
	"sync"

	"github.com/a2amock/a2amock/behaviors"
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
