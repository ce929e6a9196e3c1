package scenario_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/scenario"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// problemsOf parses and configures src and returns the rendered problems.
func problemsOf(t *testing.T, src string) []string {
	t.Helper()
	s, err := scenario.Parse([]byte(src), "bad.yaml")
	if err == nil {
		_, err = s.Config(nil)
	}
	require.Error(t, err)
	var se *scenario.Error
	require.True(t, errors.As(err, &se), "%T: %v", err, err)
	out := make([]string, len(se.Problems))
	for i, p := range se.Problems {
		out[i] = p.String()
	}
	assert.Equal(t, strings.Join(out, "\n"), err.Error())
	return out
}

func TestValidationErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		src  string
		want []string // each a prefix of one problem, in order
	}{
		{"wrong key", `
server:
  stepdelay: 10ms
agents:
  - name: a
`, []string{`bad.yaml:3:3: server: unknown key "stepdelay"; valid keys: address, seed, stepDelay, keepAlive, strictVersion`}},
		{"wrong type", `
server: {seed: many}
agents:
  - name: a
    card:
      capabilities: {streaming: "yes"}
      skills: {id: x}
`, []string{
			`bad.yaml:2:16: server.seed: expected a non-negative integer, found the string "many"`,
			`bad.yaml:6:33: agents[0].card.capabilities.streaming: expected true or false, found the string "yes"`,
			`bad.yaml:7:16: agents[0].card.skills: expected a list, found a mapping`,
		}},
		{"seed out of range", `
server:
  seed: 99999999999999999999999
agents:
  - {name: a}
`, []string{`bad.yaml:3:9: server.seed: 99999999999999999999999 is out of range: use 0 to 18446744073709551615`}},
		{"negative seed", "server: {seed: -1}\nagents: [{name: a}]\n",
			[]string{`bad.yaml:1:16: server.seed: -1 is out of range: use 0 to 18446744073709551615`}},
		{"unknown behavior", `
agents:
  - name: a
    behaviors:
      - skip-working
      - never-ending
      - name: stuck-submited
`, []string{
			`bad.yaml:6:9: agents[0].behaviors[1]: unknown behavior "never-ending"; valid behaviors: `,
			`bad.yaml:7:9: agents[0].behaviors[2]: unknown behavior "stuck-submited"; valid behaviors: `,
		}},
		{"bad behavior parameter", `
agents:
  - name: a
    behaviors:
      - name: stuck-submitted
        params: {for: soon}
`, []string{`bad.yaml:5:9: agents[0].behaviors[0]: behavior "stuck-submitted": parameter for: "soon" is not a duration`}},
		{"bad duration", `
server: {stepDelay: 20}
agents:
  - name: a
    timelines:
      - steps:
          - state: working
            after: 1 second
`, []string{
			`bad.yaml:2:21: server.stepDelay: "20" is not a duration: write a non-negative number with a unit, e.g. 50ms, 2s, 1m30s`,
			`bad.yaml:8:20: agents[0].timelines[0].steps[0].after: "1 second" is not a duration`,
		}},
		{"invalid YAML", "agents:\n  - name: a\n    card: {dialect: \"0.3\"\n", []string{`bad.yaml:3:`}},
		{"tab indentation", "agents:\n\t- name: a\n", []string{`bad.yaml:2:`}},
		{"unknown state", `
agents:
  - name: a
    timelines:
      - steps:
          - state: done
`, []string{`bad.yaml:6:20: agents[0].timelines[0].steps[0].state: "done" is not valid; valid values: submitted, working, input-required, auth-required, completed, failed, canceled, rejected, unknown`}},
		{"unknown skill in a timeline", `
agents:
  - name: a
    card:
      skills: [{id: plan}, {id: book}]
    timelines:
      - skill: pay
        steps: [{state: completed}]
`, []string{`bad.yaml:7:16: agents[0].timelines[0].skill: unknown skill "pay"; the agent's skills: plan, book`}},
		{"step with two kinds and one with none", `
agents:
  - name: a
    timelines:
      - steps:
          - {state: working, action: stop}
          - {after: 5ms}
          - {action: end-stream, message: bye}
`, []string{
			`bad.yaml:6:14: agents[0].timelines[0].steps[0]: a step needs exactly one of state, artifact or action; found state and action`,
			`bad.yaml:7:14: agents[0].timelines[0].steps[1]: a step needs exactly one of state, artifact or action; found none`,
			`bad.yaml:8:43: agents[0].timelines[0].steps[2].message: message applies to state steps only`,
		}},
		{"bad enums and regexp", `
agents:
  - name: a
    card: {dialect: "2.0"}
    timelines:
      - on: follow-up
        text: "(unclosed"
        answer: new-task
        steps: [{action: explode}]
`, []string{
			`bad.yaml:4:21: agents[0].card.dialect: "2.0" is not valid; valid values: 1.0, 0.3, 0.2, 0.1`,
			`bad.yaml:6:13: agents[0].timelines[0].on: "follow-up" is not valid; valid values: new, continuation`,
			`bad.yaml:9:26: agents[0].timelines[0].steps[0].action: "explode" is not valid; valid values: end-stream, hold-stream, stop`,
		}},
		{"answer new-task on a new message, bad regexp", `
agents:
  - name: a
    timelines:
      - text: "(unclosed"
        answer: new-task
        steps: [{state: completed}]
`, []string{
			`bad.yaml:5:15: agents[0].timelines[0].text: "(unclosed" is not a regular expression (Go syntax)`,
			`bad.yaml:6:17: agents[0].timelines[0].answer: answer: new-task applies to on: continuation only`,
		}},
		{"missing and duplicate names", `
agents:
  - card: {}
  - name: b
  - name: b
`, []string{
			`bad.yaml:3:5: agents[0]: missing key "name"`,
		}},
		{"duplicate agent", `
agents:
  - name: b
  - name: b
`, []string{`bad.yaml:4:11: agents[1].name: agent name "b" is already used by agents[0]`}},
		{"duplicate and missing skill ids, each reported once", `
agents:
  - name: a
    card:
      skills:
        - {id: s}
        - {id: s}
        - {id: "", name: unnamed}
`, []string{
			`bad.yaml:7:16: agents[0].card.skills[1].id: skill id "s" is already used by skills[0]`,
			`bad.yaml:8:12: agents[0].card.skills[2]: a skill needs an id`,
		}},
		{"a listen address without a port", `
server: {address: nonsense}
agents:
  - name: a
`, []string{`bad.yaml:2:19: server.address: "nonsense" is not a listen address: write host:port`}},
		{"a port out of range", "server: {address: \"127.0.0.1:70000\"}\nagents: [{name: a}]\n", []string{`bad.yaml:1:19: server.address: "127.0.0.1:70000" is not a listen address`}},
		{"a binding listed twice", `
agents:
  - name: a
    bindings: [JSONRPC, HTTP+JSON, JSONRPC]
`, []string{`bad.yaml:4:36: agents[0].bindings[2]: "JSONRPC" is already listed as bindings[0]`}},
		{"empty file", "# nothing\n", []string{`bad.yaml:1:1: the file is empty`}},
		{"no agents key", "server: {seed: 1}\n", []string{`bad.yaml:1:1: missing key "agents"`}},
		{"security names an undeclared scheme", `
agents:
  - name: a
    card:
      securitySchemes:
        bearer: {type: http, scheme: bearer}
      security:
        - {oauth: []}
`, []string{`bad.yaml:8:19: agents[0].card.security[0].oauth: security requirement names the undeclared scheme "oauth"; declared schemes: bearer`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := problemsOf(t, tc.src)
			require.Len(t, got, len(tc.want), strings.Join(got, "\n"))
			for i, w := range tc.want {
				assert.True(t, strings.HasPrefix(got[i], w), "problem %d:\n got  %s\n want %s...", i, got[i], w)
			}
		})
	}
}

func TestUnknownBehaviorListsValidNames(t *testing.T) {
	t.Parallel()
	got := problemsOf(t, "agents:\n  - name: a\n    behaviors: [nope]\n")
	require.Len(t, got, 1)
	for _, name := range behaviors.Catalogue().Names() {
		assert.Contains(t, got[0], name)
	}
}

// A behavior listed under one agent but scoped to another (or to none that
// exists) never acts: each agent's behaviors see only its own requests. The
// file used to validate "ok"; testkit and serve --behavior refuse the same.
func TestBehaviorScopedToAnotherAgent(t *testing.T) {
	t.Parallel()
	got := problemsOf(t, `
agents:
  - name: a
    behaviors:
      - skip-working:agent=a
      - never-terminal:agent=b
      - name: skip-working
        scope: {agent: nobody}
  - name: b
`)
	assert.Equal(t, []string{
		`bad.yaml:6:9: agents[0].behaviors[1]: "never-terminal:agent=b" is scoped to agent "b" but listed under agent "a": it would never act (an agent's behaviors see only its own requests)`,
		`bad.yaml:7:9: agents[0].behaviors[2]: "skip-working:agent=nobody" is scoped to agent "nobody" but listed under agent "a": it would never act (an agent's behaviors see only its own requests)`,
	}, got)
}

func TestStructuredAndTextBehaviorsAgree(t *testing.T) {
	t.Parallel()
	s, err := scenario.Parse([]byte(`
agents:
  - name: a
    behaviors:
      - stream-drop-events:rate=0.5,terminal=true,op=stream|subscribe
      - name: stream-drop-events
        params: {rate: 0.5, terminal: true}
        scope: {op: [stream, subscribe]}
`), "ok.yaml")
	require.NoError(t, err)
	cfg, err := s.Config(nil)
	require.NoError(t, err)
	bs := cfg.Agents[0].Behaviors
	require.Len(t, bs, 2)
	a, b := bs[0].(*behaviors.Scoped), bs[1].(*behaviors.Scoped)
	assert.Equal(t, a.Behavior, b.Behavior)
	assert.Equal(t, a.Scope, b.Scope)
	assert.Equal(t, []wire.Op{"stream", "subscribe"}, b.Scope.Ops)
}

func TestConfigTranslatesEverything(t *testing.T) {
	t.Parallel()
	s, err := scenario.Parse([]byte(`
server: {seed: 5, stepDelay: 0s, keepAlive: 2s, strictVersion: true, address: "127.0.0.1:9999", grpc: true, signCards: true}
agents:
  - name: a
    card:
      name: Alpha
      dialect: 1.0
      capabilities: {pushNotifications: true}
      skills:
        - {id: s1, needsInput: true, inputPrompt: "which?", estimatedDuration: 1m30s, inputModes: [text/plain]}
      securitySchemes:
        key: {type: apiKey, in: header, name: X-Key}
      security: [{key: []}]
    timelines:
      - skill: s1
        text: "(?i)refund"
        steps:
          - state: submitted
          - state: working
            after: 50ms
            message: busy
            final: false
          - artifact: {id: r, text: "a", data: {n: 1}}
            append: true
            lastChunk: true
          - action: hold-stream
      - on: continuation
        answer: new-task
        steps: [{action: stop}]
`), "ok.yaml")
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:9999", s.Address())
	cfg, err := s.Config(nil)
	require.NoError(t, err)
	assert.Equal(t, uint64(5), cfg.Seed)
	assert.Equal(t, time.Duration(-1), cfg.StepDelay, "0s means no delay")
	assert.Equal(t, 2*time.Second, cfg.KeepAliveInterval)
	assert.True(t, cfg.StrictVersion)
	assert.True(t, cfg.GRPC)
	assert.True(t, cfg.SignCards)
	require.Len(t, cfg.Agents, 1)
	ac := cfg.Agents[0]
	c := ac.Card
	assert.Equal(t, "Alpha", c.Name)
	assert.Equal(t, wire.V10, c.Dialect, "an unquoted 1.0 is the dialect 1.0")
	assert.True(t, c.Capabilities.PushNotifications)
	assert.True(t, c.Capabilities.Streaming, "unset capabilities keep the generated value")
	require.Len(t, c.Skills, 1)
	assert.Equal(t, 90*time.Second, c.Skills[0].EstimatedDuration)
	assert.True(t, c.Skills[0].NeedsInput)
	assert.Equal(t, []string{"s1"}, c.Skills[0].Tags)
	assert.Equal(t, "X-Key", c.SecuritySchemes["key"].Name)
	require.Len(t, ac.Scripts, 2)
	sc := ac.Scripts[0]
	assert.Equal(t, "s1", sc.Skill)
	assert.True(t, sc.Text.MatchString("I want a REFUND"))
	assert.False(t, sc.Continuation)
	f := false
	assert.Equal(t, timeline.Timeline{
		{Kind: timeline.StepState, State: wire.StateSubmitted},
		{Kind: timeline.StepState, State: wire.StateWorking, After: 50 * time.Millisecond, Message: "busy", Final: &f},
		{Kind: timeline.StepArtifact, Artifact: &wire.Artifact{ArtifactID: "r", Parts: []wire.Part{wire.TextPart("a"), {Kind: wire.PartData, Data: map[string]any{"n": uint64(1)}}}}, Append: true, LastChunk: true},
		{Kind: timeline.StepHoldStream},
	}, sc.Timeline)
	assert.True(t, ac.Scripts[1].Continuation)
	assert.True(t, ac.Scripts[1].AnswerNewTask)
}

func TestGeneratedCardFromNameOnly(t *testing.T) {
	t.Parallel()
	src := "server: {seed: 42}\nagents:\n  - name: planner\n"
	s1, err := scenario.Parse([]byte(src), "a.yaml")
	require.NoError(t, err)
	cfg1, err := s1.Config(nil)
	require.NoError(t, err)
	s2, err := scenario.Parse([]byte(strings.Replace(src, "42", "43", 1)), "b.yaml")
	require.NoError(t, err)
	cfg2, err := s2.Config(nil)
	require.NoError(t, err)
	assert.Equal(t, "planner", cfg1.Agents[0].Card.Name)
	assert.NotEmpty(t, cfg1.Agents[0].Card.Skills)
	assert.NotEqual(t, cfg1.Agents[0].Card.Skills, cfg2.Agents[0].Card.Skills, "the card follows the seed")
}

func TestDefault(t *testing.T) {
	t.Parallel()
	s := scenario.Default()
	cfg, err := s.Config(nil)
	require.NoError(t, err)
	require.Len(t, cfg.Agents, 1)
	assert.Equal(t, "agent", cfg.Agents[0].Name)
	assert.Empty(t, cfg.Agents[0].Behaviors)
	assert.Empty(t, cfg.Agents[0].Scripts)
	assert.Equal(t, "127.0.0.1:8080", s.Address())
	assert.Contains(t, string(scenario.DefaultYAML()), "name: agent")
}

func TestLoad(t *testing.T) {
	t.Parallel()
	_, err := scenario.Load(filepath.Join(t.TempDir(), "missing.yaml"))
	var se *scenario.Error
	require.ErrorAs(t, err, &se)
	assert.Contains(t, err.Error(), "missing.yaml")
	s, err := scenario.Load("../examples/incidents/three-worker-incident.yaml")
	require.NoError(t, err)
	assert.Equal(t, "../examples/incidents/three-worker-incident.yaml", s.File())
}

// TestSchemaIsFresh fails when docs/scenario.schema.json no longer matches the
// Go types; run go generate ./scenario.
func TestSchemaIsFresh(t *testing.T) {
	t.Parallel()
	shipped, err := os.ReadFile("../docs/scenario.schema.json")
	require.NoError(t, err)
	assert.Equal(t, string(scenario.Schema()), string(shipped), "docs/scenario.schema.json is stale: run go generate ./scenario")
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(scenario.Schema()))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource(scenario.SchemaID, doc))
	sch, err := c.Compile(scenario.SchemaID)
	require.NoError(t, err)
	return sch
}

// yamlAsJSON reads YAML into the values a JSON Schema validator expects.
func yamlAsJSON(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	require.NoError(t, yaml.Unmarshal(data, &v))
	j, err := json.Marshal(v)
	require.NoError(t, err)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	require.NoError(t, err)
	return doc
}

func exampleFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../examples/incidents/*.yaml")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 7)
	return append(files, "default.yaml")
}

func TestExamplesMatchSchema(t *testing.T) {
	t.Parallel()
	sch := compileSchema(t)
	for _, f := range exampleFiles(t) {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.NoError(t, sch.Validate(yamlAsJSON(t, data)), f)
		_, err = scenario.Parse(data, f)
		assert.NoError(t, err, f)
	}
}

// The schema must reject what the parser rejects, or editors would
// accept files a2amock refuses.
func TestSchemaRejectsBadFiles(t *testing.T) {
	t.Parallel()
	sch := compileSchema(t)
	for _, src := range []string{
		"agents: [{name: a, colour: red}]",
		"agents: [{name: a, timelines: [{steps: [{state: done}]}]}]",
		"agents: [{name: a, timelines: [{steps: [{after: soon, action: stop}]}]}]",
		"agents: [{name: a, behaviors: [42]}]",
		"agents: [{name: a, card: {dialect: '2.0'}}]",
		"server: {seed: -1}\nagents: [{name: a}]",
		"server: {}",
	} {
		assert.Error(t, sch.Validate(yamlAsJSON(t, []byte(src))), src)
		_, err := scenario.Parse([]byte(src), "x.yaml")
		assert.Error(t, err, src)
	}
}

// The schema must accept what the parser accepts: an enum tag on a list
// field (bindings, conform.outcomes) constrains the list's items, so an
// editor must not flag a valid list, and must flag a bad item.
func TestSchemaListEnumsConstrainItems(t *testing.T) {
	t.Parallel()
	sch := compileSchema(t)
	for _, src := range []string{
		"agents: [{name: a, bindings: [JSONRPC, HTTP+JSON]}]",
		"agents: [{name: a}]\nconform: {id: x, outcomes: [completed, diverged]}",
	} {
		_, err := scenario.Parse([]byte(src), "x.yaml")
		require.NoError(t, err, src)
		assert.NoError(t, sch.Validate(yamlAsJSON(t, []byte(src))), src)
	}
	for _, src := range []string{
		"agents: [{name: a, bindings: [JSON-RPC]}]",
		"agents: [{name: a}]\nconform: {id: x, outcomes: [done]}",
	} {
		_, err := scenario.Parse([]byte(src), "x.yaml")
		require.Error(t, err, src)
		assert.Error(t, sch.Validate(yamlAsJSON(t, []byte(src))), src)
	}
}

// Check (what a2amock validate runs) reports the semantic problems of a file
// that also has structural ones; an unquoted dialect: 1.0, which is valid,
// must not be one of them.
func TestCheckKeepsUnquotedDialectBesideAProblem(t *testing.T) {
	t.Parallel()
	src := "agents:\n  - name: a\n    card: {dialect: 1.0}\n  - name: b\n    colour: red\n"
	err := scenario.CheckData([]byte(src), "bad.yaml", nil)
	require.Error(t, err)
	assert.Equal(t, `bad.yaml:5:5: agents[1]: unknown key "colour"; valid keys: name, card, behaviors, enforceAuth, bindings, timelines`, err.Error())
}
