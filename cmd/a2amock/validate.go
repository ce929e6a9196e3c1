package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/scenario"
	"github.com/a2amock/a2amock/server"
)

// validate checks scenario files the way serve would load them and prints
// every problem with its position and the valid choices.
func validate(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: a2amock validate FILE...")
		return 2
	}
	reg := behaviors.Catalogue()
	failed := false
	for _, path := range args {
		if err := checkScenario(path, reg); err != nil {
			failed = true
			var se *scenario.Error
			if errors.As(err, &se) {
				for _, p := range se.Problems {
					fmt.Fprintln(stderr, p.String())
				}
			} else {
				fmt.Fprintf(stderr, "%s: %v\n", path, err)
			}
			continue
		}
		fmt.Fprintf(stdout, "%s: ok\n", path)
	}
	if failed {
		return 1
	}
	return 0
}

func checkScenario(path string, reg *behaviors.Registry) error {
	s, err := scenario.Load(path)
	if err != nil {
		return err
	}
	_, err = s.Config(reg)
	return err
}

// scenarioServeConfig builds serve's configuration from a scenario file (the
// embedded default when path is empty); the flags named in explicit override
// the file.
func scenarioServeConfig(path string, explicit map[string]bool, addr string, seed uint64, stepDelay time.Duration, specs []string) (server.Config, string, []string, error) {
	var s *scenario.Scenario
	if path == "" {
		s = scenario.Default()
	} else {
		var err error
		if s, err = scenario.Load(path); err != nil {
			return server.Config{}, "", nil, err
		}
	}
	if explicit["seed"] {
		s.Server.Seed = seed // before Config: generated cards follow the seed
	}
	cfg, err := s.Config(behaviors.Catalogue())
	if err != nil {
		return server.Config{}, "", nil, err
	}
	listen := s.Address()
	if explicit["addr"] || listen == "" {
		listen = addr
	}
	if explicit["step-delay"] {
		cfg.StepDelay = stepDelay
		if stepDelay == 0 {
			cfg.StepDelay = -1
		}
	}
	var errs []error
	for _, spec := range specs {
		b, err := behaviors.Parse(spec)
		if err != nil {
			errs = append(errs, fmt.Errorf("--behavior: %w", err))
			continue
		}
		cfg.Agents[0].Behaviors = append(cfg.Agents[0].Behaviors, b)
	}
	if err := errors.Join(errs...); err != nil {
		return server.Config{}, "", nil, err
	}
	names := make([]string, len(cfg.Agents))
	for i, a := range cfg.Agents {
		names[i] = a.Name
	}
	return cfg, listen, names, nil
}
