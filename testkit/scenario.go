package testkit

import (
	"github.com/a2amock/a2amock/scenario"
)

// WithScenarioFile serves the scenario file at path (see package scenario
// and a2amock validate): its server settings, agents, cards, behaviors and
// timelines. Options after it apply on top (a behavior added, a clock);
// a clock or registry given before it is kept. A file with any problem fails
// Start with every problem and its file:line:col.
func WithScenarioFile(path string) Option {
	return func(s *settings) {
		sc, err := scenario.Load(path)
		s.useScenario(sc, err)
	}
}

// WithScenarioYAML serves a scenario given as YAML text, e.g. a file
// embedded with go:embed or written inline in a test; problems are
// reported against the name "scenario.yaml".
func WithScenarioYAML(data []byte) Option {
	return func(s *settings) {
		sc, err := scenario.Parse(data, "scenario.yaml")
		s.useScenario(sc, err)
	}
}

func (s *settings) useScenario(sc *scenario.Scenario, err error) {
	if err != nil {
		s.errs = append(s.errs, err)
		return
	}
	cfg, err := sc.Config(s.cfg.Registry)
	if err != nil {
		s.errs = append(s.errs, err)
		return
	}
	cfg.Clock, cfg.Logger = s.cfg.Clock, s.cfg.Logger
	if s.cfg.Registry != nil {
		cfg.Registry = s.cfg.Registry
	}
	s.cfg = cfg
}

// WithScenario serves a scenario given as a file path (a string) or as YAML
// text (a []byte): WithScenarioFile or WithScenarioYAML, chosen by type so a
// path is never mistaken for YAML or the reverse.
func WithScenario[S string | []byte](source S) Option {
	switch src := any(source).(type) {
	case string:
		return WithScenarioFile(src)
	default:
		return WithScenarioYAML(src.([]byte))
	}
}
