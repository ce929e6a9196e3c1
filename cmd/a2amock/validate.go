package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/scenario"
	"github.com/a2amock/a2amock/server"
)

// validate checks scenario files the way serve would load them and prints
// every problem with its position and the valid choices.
func validate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	args, code, ok := parseFlags(fs, "validate FILE...\n\nChecks scenario files the way serve loads them and prints every problem with file:line:col (exit 1), or ok.", args, stdout)
	if !ok {
		return code
	}
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
	return scenario.Check(path, reg)
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
			// Say every problem of the file, as a2amock validate does,
			// not only the first kind found.
			if all := scenario.Check(path, behaviors.Catalogue()); all != nil {
				err = all
			}
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
	if err := attachBehaviors(&cfg, specs); err != nil {
		return server.Config{}, "", nil, err
	}
	names := make([]string, len(cfg.Agents))
	for i, a := range cfg.Agents {
		names[i] = a.Name
	}
	return cfg, listen, names, nil
}

// attachBehaviors parses --behavior specs (or A2AMOCK_BEHAVIOR's) and gives
// each to the agent its agent= scope names, the first agent otherwise. A
// spec naming an agent that is not served is an error: it would never fire.
func attachBehaviors(cfg *server.Config, specs []string) error {
	var errs []error
	for _, spec := range specs {
		b, err := behaviors.Parse(spec)
		if err != nil {
			errs = append(errs, fmt.Errorf("--behavior (or A2AMOCK_BEHAVIOR) %q: %w", spec, err))
			continue
		}
		target := 0
		if want := b.Scope.Agent; want != "" {
			target = -1
			var names []string
			for i, a := range cfg.Agents {
				names = append(names, a.Name)
				if a.Name == want {
					target = i
				}
			}
			if target < 0 {
				errs = append(errs, fmt.Errorf("--behavior (or A2AMOCK_BEHAVIOR) %q: no agent named %q is served (agents: %s)",
					spec, want, strings.Join(names, ", ")))
				continue
			}
		}
		cfg.Agents[target].Behaviors = append(cfg.Agents[target].Behaviors, b)
	}
	return errors.Join(errs...)
}
