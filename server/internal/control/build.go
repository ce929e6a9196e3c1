package control

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/a2amock/a2amock/behaviors"
)

// AgentSource is what BuildAgent needs of the server; C is the server's
// configuration of one agent, opaque here but for its name and behaviors.
type AgentSource[C any] interface {
	// FreshName is a generated name no agent has.
	FreshName() string
	// ParseBehaviors parses behavior specs, reporting every bad one.
	ParseBehaviors(specs []string) ([]behaviors.Behavior, error)
	// HasLoader reports whether the server reads scenario documents; Load
	// reads one into its agents' configurations (errors as FieldErrors
	// with paths in the document); Seed is the server's seed.
	HasLoader() bool
	Load(doc []byte) ([]C, error)
	Seed() uint64
	// Name and Behaviors read a configuration; With returns it renamed,
	// with behaviors bs.
	Name(c C) string
	Behaviors(c C) []behaviors.Behavior
	With(c C, name string, bs []behaviors.Behavior) C
}

// agentNameRE is what an agent's name may be.
var agentNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ValidName reports whether name may name an agent, as a field error
// when it may not.
func ValidName(name string) FieldErrors {
	if agentNameRE.MatchString(name) {
		return nil
	}
	return FieldErrors{{Field: "name", Message: fmt.Sprintf("%q is not an agent name: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit", name)}}
}

// BuildAgent builds the configuration of a run-time agent from a POST body
// (its name generated when empty): from behavior specs alone, or through
// the server's scenario loader from a card, timelines and structured
// behaviors, or from one agent of a whole scenario. Nothing is created
// here; a problem is reported as the fields at fault.
func BuildAgent[C any](in *AgentRequest, src AgentSource[C]) (C, FieldErrors) {
	var none C
	name := in.Name
	if name == "" {
		name = src.FreshName()
	} else if fe := ValidName(name); fe != nil {
		return none, fe
	}
	present := func(r json.RawMessage) bool { return len(r) > 0 && !bytes.Equal(bytes.TrimSpace(r), []byte("null")) }
	var specs []string
	structured := false
	if present(in.Behaviors) {
		var list []json.RawMessage
		if err := json.Unmarshal(in.Behaviors, &list); err != nil {
			return none, FieldErrors{{Field: "behaviors", Message: "behaviors must be a list of specs (\"name:key=value,...\") or {name, params, scope} objects"}}
		}
		for i, item := range list {
			var text string
			if err := json.Unmarshal(item, &text); err != nil {
				structured = true
				continue
			}
			if text == "" {
				return none, FieldErrors{{Field: fmt.Sprintf("behaviors[%d]", i), Message: "a behavior spec is empty"}}
			}
			specs = append(specs, text)
		}
	}
	needLoader := in.Scenario != "" || present(in.Card) || present(in.Timelines) || structured
	if needLoader && !src.HasLoader() {
		field := "scenario"
		switch {
		case present(in.Card):
			field = "card"
		case present(in.Timelines):
			field = "timelines"
		case structured:
			field = "behaviors"
		}
		return none, FieldErrors{{Field: field, Message: "this server was built without a scenario loader (server.Config.Scenarios): give a name and behavior specs only"}}
	}
	if in.ScenarioAgent != "" && in.Scenario == "" {
		return none, FieldErrors{{Field: "scenarioAgent", Message: "scenarioAgent picks an agent of scenario, which is not given"}}
	}
	if !needLoader {
		bs, err := src.ParseBehaviors(specs)
		if err != nil {
			return none, BehaviorFieldErrors(err)
		}
		if fe := StrayAgentScopes(name, bs, func(i int) string { return fmt.Sprintf("behaviors[%d]", i) }); fe != nil {
			return none, fe
		}
		return src.With(none, name, bs), nil
	}
	if in.Scenario != "" {
		if present(in.Card) || present(in.Timelines) {
			field := "card"
			if !present(in.Card) {
				field = "timelines"
			}
			return none, FieldErrors{{Field: field, Message: "give either scenario (the agent comes from it) or card and timelines, not both"}}
		}
		agents, err := src.Load([]byte(in.Scenario))
		if err != nil {
			return none, PrefixFieldErrors(err, "scenario", "scenario")
		}
		pick := 0
		if in.ScenarioAgent != "" {
			pick = slices.IndexFunc(agents, func(c C) bool { return src.Name(c) == in.ScenarioAgent })
			if pick < 0 {
				names := make([]string, len(agents))
				for i, c := range agents {
					names[i] = src.Name(c)
				}
				return none, FieldErrors{{Field: "scenarioAgent", Message: fmt.Sprintf("the scenario has no agent %q (agents: %s)", in.ScenarioAgent, strings.Join(names, ", "))}}
			}
		}
		c := agents[pick]
		bs := src.Behaviors(c)
		// The agent is renamed: a behavior the scenario scoped to its old
		// name would never act under the new one.
		if fe := StrayAgentScopes(name, bs, func(i int) string { return fmt.Sprintf("scenario.agents[%d].behaviors[%d]", pick, i) }); fe != nil {
			return none, fe
		}
		if present(in.Behaviors) {
			extra, ferr := loadBehaviors(src, name, in.Behaviors, specs, structured)
			if ferr != nil {
				return none, ferr
			}
			if fe := StrayAgentScopes(name, extra, func(i int) string { return fmt.Sprintf("behaviors[%d]", i) }); fe != nil {
				return none, fe
			}
			bs = append(bs, extra...)
		}
		return src.With(c, name, bs), nil
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
	c, ferr := loadAgentDoc(src, doc)
	if ferr != nil {
		return none, ferr
	}
	return c, nil
}

// loadBehaviors parses the behaviors of a body, through the scenario loader
// when some are structured.
func loadBehaviors[C any](src AgentSource[C], name string, raw json.RawMessage, specs []string, structured bool) ([]behaviors.Behavior, FieldErrors) {
	if !structured {
		bs, err := src.ParseBehaviors(specs)
		if err != nil {
			return nil, BehaviorFieldErrors(err)
		}
		return bs, nil
	}
	c, ferr := loadAgentDoc(src, map[string]any{"name": name, "behaviors": raw})
	if ferr != nil {
		return nil, ferr
	}
	return src.Behaviors(c), nil
}

// loadAgentDoc runs one agent's fragment through the scenario loader, with
// the server's seed, and strips the "agents[0]." prefix from field paths.
func loadAgentDoc[C any](src AgentSource[C], agentDoc map[string]any) (C, FieldErrors) {
	var none C
	doc, err := json.Marshal(map[string]any{"server": map[string]any{"seed": src.Seed()}, "agents": []any{agentDoc}})
	if err != nil {
		return none, FieldErrors{{Field: "body", Message: err.Error()}}
	}
	agents, err := src.Load(doc)
	if err != nil {
		return none, PrefixFieldErrors(err, "body", "")
	}
	if len(agents) != 1 {
		return none, FieldErrors{{Field: "body", Message: "the scenario loader did not return one agent"}}
	}
	return agents[0], nil
}

// StrayAgentScopes reports, as the fields field(i) names, the behaviors of
// bs whose scope names an agent other than name: an agent's behaviors see
// only its own requests, so they would never act. It returns nil when there
// is none.
func StrayAgentScopes(name string, bs []behaviors.Behavior, field func(i int) string) FieldErrors {
	var out FieldErrors
	for i, b := range bs {
		sc, ok := b.(*behaviors.Scoped)
		if !ok || !sc.ForOtherAgent(name) {
			continue
		}
		out = append(out, FieldError{Field: field(i), Message: fmt.Sprintf("%q is scoped to agent %q but set on agent %q: it would never act (an agent's behaviors see only its own requests)", sc.Text, sc.Scope.Agent, name)})
	}
	return out
}
