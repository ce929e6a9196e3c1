package scenario

import (
	"fmt"
	"math"
	"net"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// Config builds the server configuration the scenario describes, resolving
// behavior names in registry (nil means behaviors.Catalogue()). It checks
// everything Parse could not — behaviors and their parameters, skills named
// by timelines, regular expressions, the shape of each step — and reports
// every problem at once in an *Error; it returns a configuration only when
// there is none, and only one the server accepts.
func (s *Scenario) Config(registry *behaviors.Registry) (server.Config, error) {
	if registry == nil {
		registry = behaviors.Catalogue()
	}
	ps := &problems{file: s.file}
	cfg := server.Config{Seed: s.Server.Seed, StrictVersion: s.Server.StrictVersion, SignCards: s.Server.SignCards, GRPC: s.Server.GRPC, Registry: registry, Scenarios: Loader(registry)}
	if s.Server.StepDelay != "" {
		d, _ := parseDuration(string(s.Server.StepDelay)) // checked by Parse
		cfg.StepDelay = d
		if d == 0 {
			cfg.StepDelay = -1 // the server reads 0 as "default"; the file means none
		}
	}
	if s.Server.KeepAlive != "" {
		cfg.KeepAliveInterval, _ = parseDuration(string(s.Server.KeepAlive))
	}
	s.Server.Limits.apply(&cfg)
	if a := s.Server.Address; a != "" {
		// Refused here, where the file can say where, rather than by
		// serve's listen after validate called the file fine.
		if _, port, err := net.SplitHostPort(a); err != nil || !validPort(port) {
			ps.add(s.pos.at("server.address"), "server.address", "%q is not a listen address: write host:port, e.g. 127.0.0.1:8080 (port 0 picks a free one)", a)
		}
	}
	if len(s.Agents) == 0 {
		ps.add(s.pos.at("agents"), "agents", "a scenario needs at least one agent")
	}
	names := map[string]int{}
	for i, as := range s.Agents {
		path := fmt.Sprintf("agents[%d]", i)
		if as.Name == "" || strings.ContainsAny(as.Name, "/?#% ") {
			ps.add(s.pos.at(path+".name"), path+".name", "%q is not an agent name: use one URL path segment without / ? # %% or spaces", as.Name)
		}
		if j, dup := names[as.Name]; dup {
			ps.add(s.pos.at(path+".name"), path+".name", "agent name %q is already used by agents[%d]", as.Name, j)
		}
		names[as.Name] = i
		ac := server.AgentConfig{Name: as.Name, Card: s.card(as, cfg.Seed, path, ps), EnforceAuth: as.EnforceAuth}
		for j, b := range as.Bindings {
			bp := fmt.Sprintf("%s.bindings[%d]", path, j)
			if k := slices.Index(as.Bindings[:j], b); k >= 0 {
				ps.add(s.pos.at(bp), bp, "%q is already listed as bindings[%d]", b, k)
				continue
			}
			switch wire.Binding(b) {
			case wire.BindingJSONRPC:
			case wire.BindingREST:
				if ac.Card != nil && !slices.Contains(wire.Describe(ac.Card.Dialect).Bindings, wire.BindingREST) {
					ps.add(s.pos.at(bp), bp, "HTTP+JSON is served for v1.0 and v0.3 cards only (this card's dialect is %s)", ac.Card.Dialect)
				}
			default:
				ps.add(s.pos.at(bp), bp, "%q is not a binding (JSONRPC, HTTP+JSON)", b)
			}
			ac.Bindings = append(ac.Bindings, wire.Binding(b))
		}
		for j, bs := range as.Behaviors {
			bp := fmt.Sprintf("%s.behaviors[%d]", path, j)
			b, err := s.behavior(registry, bs, bp, ps)
			if err != nil {
				ps.add(s.pos.at(bp), bp, "%v", err)
				continue
			}
			if b != nil && b.ForOtherAgent(as.Name) {
				// Each agent's behaviors see only its own requests.
				ps.add(s.pos.at(bp), bp, "%q is scoped to agent %q but listed under agent %q: it would never act (an agent's behaviors see only its own requests)", b.Text, b.Scope.Agent, as.Name)
				continue
			}
			if b != nil {
				ac.Behaviors = append(ac.Behaviors, b)
			}
		}
		for j, ts := range as.Timelines {
			tp := fmt.Sprintf("%s.timelines[%d]", path, j)
			if sc, ok := s.script(ts, ac.Card, tp, ps); ok {
				ac.Scripts = append(ac.Scripts, sc)
			}
		}
		cfg.Agents = append(cfg.Agents, ac)
	}
	if err := ps.err(); err != nil {
		return server.Config{}, err
	}
	// The server checks a few things of its own; ask it now so that a file
	// it would refuse is refused here, whole, before anything listens.
	srv, err := server.New(cfg)
	if err != nil {
		ps.add(position{}, "", "the server refuses this configuration: %v", err)
		return server.Config{}, ps.err()
	}
	_ = srv.Close()
	return cfg, nil
}

// card builds the declared card of an agent: generated from the seed, with
// the fields the file sets laid over it.
func (s *Scenario) card(as AgentSpec, seed uint64, path string, ps *problems) *cards.Card {
	c := cards.Generate(as.Name, seed)
	cs := as.Card
	if cs == nil {
		return c
	}
	path += ".card"
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&c.Name, cs.Name)
	set(&c.Description, cs.Description)
	set(&c.Version, cs.Version)
	set(&c.DocumentationURL, cs.DocumentationURL)
	set(&c.IconURL, cs.IconURL)
	if cs.Dialect != "" {
		c.Dialect = wire.Dialect(cs.Dialect)
	}
	if cs.Provider != nil {
		c.Provider = &cards.Provider{Organization: cs.Provider.Organization, URL: cs.Provider.URL}
	}
	if cp := cs.Capabilities; cp != nil {
		setb := func(dst *bool, v *bool) {
			if v != nil {
				*dst = *v
			}
		}
		setb(&c.Capabilities.Streaming, cp.Streaming)
		setb(&c.Capabilities.PushNotifications, cp.PushNotifications)
		setb(&c.Capabilities.StateTransitionHistory, cp.StateTransitionHistory)
		setb(&c.Capabilities.ExtendedAgentCard, cp.ExtendedAgentCard)
	}
	if cs.DefaultInputModes != nil {
		c.DefaultInputModes = slices.Clone(cs.DefaultInputModes)
	}
	if cs.DefaultOutputModes != nil {
		c.DefaultOutputModes = slices.Clone(cs.DefaultOutputModes)
	}
	if cs.Skills != nil {
		c.Skills = nil
		ids := map[string]int{}
		for i, sk := range cs.Skills {
			sp := fmt.Sprintf("%s.skills[%d]", path, i)
			if sk.ID == "" {
				ps.add(s.pos.at(sp), sp, "a skill needs an id")
			}
			if j, dup := ids[sk.ID]; dup {
				ps.add(s.pos.at(sp+".id"), sp+".id", "skill id %q is already used by skills[%d]", sk.ID, j)
			}
			ids[sk.ID] = i
			// A card needs a name, a description and a tag per skill; a
			// scenario about behavior should not have to invent them.
			name := sk.Name
			if name == "" {
				name = sk.ID
			}
			if sk.Description == "" {
				sk.Description = name + "."
			}
			if len(sk.Tags) == 0 {
				sk.Tags = []string{sk.ID}
			}
			est, _ := parseDuration(string(sk.EstimatedDuration))
			c.Skills = append(c.Skills, cards.Skill{ID: sk.ID, Name: name, Description: sk.Description,
				Tags: slices.Clone(sk.Tags), Examples: slices.Clone(sk.Examples),
				InputModes: slices.Clone(sk.InputModes), OutputModes: slices.Clone(sk.OutputModes),
				NeedsInput: sk.NeedsInput, InputPrompt: sk.InputPrompt, EstimatedDuration: est})
		}
		if len(c.Skills) == 0 {
			ps.add(s.pos.at(path+".skills"), path+".skills", "a card needs at least one skill (omit skills to keep the generated ones)")
		}
	}
	if cs.SecuritySchemes != nil {
		c.SecuritySchemes = map[string]cards.SecurityScheme{}
		for name, sc := range cs.SecuritySchemes {
			c.SecuritySchemes[name] = cards.SecurityScheme{Type: sc.Type, Description: sc.Description, In: sc.In, Name: sc.Name,
				Scheme: sc.Scheme, BearerFormat: sc.BearerFormat, TokenURL: sc.TokenURL, Scopes: sc.Scopes, OpenIDConnectURL: sc.OpenIDConnectURL}
		}
	}
	for i, req := range cs.Security {
		for name := range req {
			if _, ok := c.SecuritySchemes[name]; !ok {
				rp := fmt.Sprintf("%s.security[%d].%s", path, i, name)
				declared := strings.Join(sortedKeys(c.SecuritySchemes), ", ")
				if declared == "" {
					declared = "(none)"
				}
				ps.add(s.pos.at(rp), rp, "security requirement names the undeclared scheme %q; declared schemes: %s", name, declared)
			}
		}
		c.Security = append(c.Security, req)
	}
	if err := c.Validate(); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			field, msg, ok := strings.Cut(line, ": ")
			if !ok || strings.HasPrefix(field, "security[") || skillID.MatchString(field) {
				// Undeclared schemes, and missing or repeated skill ids, are
				// reported above in the scenario's words; a second report
				// of each would count one mistake twice.
				continue
			}
			fp := path + "." + field
			ps.add(s.pos.at(fp), fp, "card: %s", msg)
		}
	}
	return c
}

// validPort reports whether p is a port number net.Listen takes.
func validPort(p string) bool {
	n, err := strconv.ParseUint(p, 10, 16)
	return err == nil && strconv.FormatUint(n, 10) == p
}

// skillID matches the field of a card problem about a skill's id.
var skillID = regexp.MustCompile(`^skills\[\d+\]\.id$`)

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// behavior parses one behavior entry with the registry.
func (s *Scenario) behavior(reg *behaviors.Registry, bs BehaviorSpec, path string, ps *problems) (*behaviors.Scoped, error) {
	if bs.Text != "" || bs.Name == "" {
		if strings.TrimSpace(bs.Text) == "" {
			return nil, fmt.Errorf("empty behavior; valid behaviors: %s", strings.Join(reg.Names(), ", "))
		}
		return reg.Parse(bs.Text)
	}
	if _, ok := reg.Lookup(bs.Name); !ok {
		return nil, fmt.Errorf("unknown behavior %q; valid behaviors: %s", bs.Name, strings.Join(reg.Names(), ", "))
	}
	// The structured form is written out as the text form, the one syntax
	// the registry reads; a comma inside a value would split it.
	var args []string
	bad := false
	for _, group := range []struct {
		key string
		m   map[string]any
	}{{"params", bs.Params}, {"scope", bs.Scope}} {
		for _, k := range sortedKeys(group.m) {
			v := paramText(group.m[k])
			if strings.Contains(v, ",") {
				kp := path + "." + group.key + "." + k
				ps.add(s.pos.at(kp), kp, "a value may not contain a comma (use | to separate list items)")
				bad = true
			}
			args = append(args, k+"="+v)
		}
	}
	if bad {
		return nil, nil
	}
	text := bs.Name
	if len(args) > 0 {
		text += ":" + strings.Join(args, ",")
	}
	return reg.Parse(text)
}

func paramText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case []any:
		parts := make([]string, len(x))
		for i, p := range x {
			parts[i] = paramText(p)
		}
		return strings.Join(parts, "|")
	}
	return fmt.Sprint(v)
}

// script builds one scripted timeline.
func (s *Scenario) script(ts TimelineSpec, card *cards.Card, path string, ps *problems) (server.ScriptedTimeline, bool) {
	n := len(ps.list)
	sc := server.ScriptedTimeline{Skill: ts.Skill, Continuation: ts.On == "continuation", AnswerNewTask: ts.Answer == "new-task"}
	if ts.Skill != "" && card.Skill(ts.Skill) == nil {
		ids := make([]string, len(card.Skills))
		for i, sk := range card.Skills {
			ids[i] = sk.ID
		}
		ps.add(s.pos.at(path+".skill"), path+".skill", "unknown skill %q; the agent's skills: %s", ts.Skill, strings.Join(ids, ", "))
	}
	if ts.Text != "" {
		re, err := regexp.Compile(ts.Text)
		if err != nil {
			ps.add(s.pos.at(path+".text"), path+".text", "%q is not a regular expression (Go syntax): %v", ts.Text, err)
		}
		sc.Text = re
	}
	if ts.Answer == "new-task" && !sc.Continuation {
		ps.add(s.pos.at(path+".answer"), path+".answer", "answer: new-task applies to on: continuation only")
	}
	if len(ts.Steps) == 0 {
		ps.add(s.pos.at(path+".steps"), path+".steps", "a timeline needs at least one step")
	}
	for i, st := range ts.Steps {
		sp := fmt.Sprintf("%s.steps[%d]", path, i)
		step, ok := s.step(st, sp, ps)
		if ok {
			sc.Timeline = append(sc.Timeline, step)
		}
	}
	return sc, len(ps.list) == n
}

func (s *Scenario) step(st StepSpec, path string, ps *problems) (timeline.Step, bool) {
	var kinds []string
	if st.State != "" {
		kinds = append(kinds, "state")
	}
	if st.Artifact != nil {
		kinds = append(kinds, "artifact")
	}
	if st.Action != "" {
		kinds = append(kinds, "action")
	}
	if len(kinds) != 1 {
		found := "none"
		if len(kinds) > 1 {
			found = strings.Join(kinds, " and ")
		}
		ps.add(s.pos.at(path), path, "a step needs exactly one of state, artifact or action; found %s", found)
		return timeline.Step{}, false
	}
	after, _ := parseDuration(string(st.After))
	out := timeline.Step{After: after, TaskID: st.TaskID, ContextID: st.ContextID, EventOnly: st.EventOnly}
	misplaced := func(key string, set bool, kind string) {
		if set {
			ps.add(s.pos.at(path+"."+key), path+"."+key, "%s applies to %s steps only", key, kind)
		}
	}
	switch kinds[0] {
	case "state":
		out.Kind, out.State, out.Message, out.Final = timeline.StepState, wire.TaskState(st.State), st.Message, st.Final
		misplaced("append", st.Append, "artifact")
		misplaced("lastChunk", st.LastChunk, "artifact")
	case "artifact":
		a := st.Artifact
		art := &wire.Artifact{ArtifactID: a.ID, Name: a.Name, Description: a.Description}
		if art.ArtifactID == "" {
			art.ArtifactID = "result"
		}
		if a.Text != "" {
			art.Parts = append(art.Parts, wire.TextPart(a.Text))
		}
		if a.Data != nil {
			art.Parts = append(art.Parts, wire.Part{Kind: wire.PartData, Data: jsonable(a.Data)})
		}
		if len(art.Parts) == 0 {
			ps.add(s.pos.at(path+".artifact"), path+".artifact", "an artifact needs text or data")
		}
		out.Kind, out.Artifact, out.Append, out.LastChunk = timeline.StepArtifact, art, st.Append, st.LastChunk
		misplaced("message", st.Message != "", "state")
		misplaced("final", st.Final != nil, "state")
	case "action":
		out.Kind = timeline.StepKind(st.Action)
		misplaced("message", st.Message != "", "state")
		misplaced("final", st.Final != nil, "state")
		misplaced("append", st.Append, "artifact")
		misplaced("lastChunk", st.LastChunk, "artifact")
	}
	return out, true
}

// jsonable turns decoded YAML (which may hold map[any]any and unsigned
// integers) into values encoding/json renders.
func jsonable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonable(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = jsonable(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonable(e)
		}
		return out
	}
	return v
}

// apply sets the server's bounds the file gives; absent keys keep the
// server's defaults. Values beyond what an int holds are clamped.
func (l LimitsSpec) apply(cfg *server.Config) {
	clamp := func(v uint64) int {
		return int(min(v, uint64(math.MaxInt)))
	}
	cfg.MaxBodyBytes = int64(clamp(l.MaxBodyBytes))
	cfg.TaskRetention = clamp(l.TaskRetention)
	cfg.TaskRetentionBytes = int64(clamp(l.TaskRetentionBytes))
	cfg.MaxRunningTasks = clamp(l.MaxRunningTasks)
	cfg.JournalRetention = clamp(l.JournalRetention)
	if l.ReadTimeout != "" {
		cfg.ReadTimeout, _ = parseDuration(string(l.ReadTimeout)) // checked by Parse
	}
	if l.IdleTimeout != "" {
		cfg.IdleTimeout, _ = parseDuration(string(l.IdleTimeout))
	}
}
