package scenario

// The types below are the file format. Their yaml tags name the keys, their
// doc tags become the JSON Schema's descriptions, and an enum tag lists the
// values a scalar may take (checked with their position when a file is
// parsed, and shipped in the schema so editors can complete them).

// Scenario is one scenario file: a server and the agents it hosts.
type Scenario struct {
	// Description says in words what the scenario reproduces.
	Description string `yaml:"description,omitempty" doc:"what the scenario reproduces, in words"`
	// Server holds the server-wide settings.
	Server ServerSpec `yaml:"server,omitempty" doc:"server-wide settings"`
	// Agents lists the hosted agents; the first is also served at the root.
	Agents []AgentSpec `yaml:"agents" doc:"the hosted agents; the first is also served at the root" required:"true"`
	// Conform drives a2amock conform: how the client under test is run and
	// judged (see ConformSpec).
	Conform *ConformSpec `yaml:"conform,omitempty" doc:"for a2amock conform: how the client under test is driven and judged (docs/conformance.md)"`

	file string
	pos  positions
}

// ServerSpec holds the server-wide settings of a scenario.
type ServerSpec struct {
	// Address is the listen address, e.g. 127.0.0.1:8080.
	Address string `yaml:"address,omitempty" doc:"listen address, e.g. 127.0.0.1:8080 (a2amock serve --addr overrides it)"`
	// Seed drives every id, generated card and random choice.
	Seed uint64 `yaml:"seed,omitempty" doc:"seed of every id, generated card and random choice (a2amock serve --seed overrides it)"`
	// StepDelay is the time between two states of the honest lifecycle.
	StepDelay Duration `yaml:"stepDelay,omitempty" doc:"time between two states of the honest lifecycle; 0s for none, absent for the default 20ms"`
	// KeepAlive is the period of SSE keep-alive comments.
	KeepAlive Duration `yaml:"keepAlive,omitempty" doc:"period of SSE keep-alive comments on streams held open; absent for the default 15s"`
	// StrictVersion rejects v1.0 methods sent without an A2A-Version header.
	StrictVersion bool `yaml:"strictVersion,omitempty" doc:"reject v1.0 methods sent without an A2A-Version header"`
	// SignCards signs every Agent Card (v1.0 §8.4; keys from the seed,
	// JWKS at each agent's /.well-known/jwks.json).
	SignCards bool `yaml:"signCards,omitempty" doc:"sign every Agent Card and extended card with a JWS over its JCS form (v1.0 §8.4); the keys derive from the seed and are served as a JWKS at each agent's /.well-known/jwks.json"`
	// GRPC also serves the gRPC binding, declared in every v1.0 card and
	// in the v0.3 card its v0.3 calls reach (server.Config.GRPC).
	GRPC bool `yaml:"grpc,omitempty" doc:"also serve the gRPC binding (v1.0's lf.a2a.v1.A2AService, v0.3's a2a.v1.A2AService) on the same port (h2c, or h2 over TLS) and declare it as GRPC at host:port in every v1.0 card, with the agent's name as tenant below the root, and in the v0.3 card of the agent v0.3's tenantless calls reach: the root when its card is v0.3, else the only agent whose card is (a2amock serve --grpc turns it on too)"`
	// Gateway puts the id-rewriting gateway (package gateway) in front of
	// the agents when the file is served by a2amock serve.
	Gateway bool `yaml:"gateway,omitempty" doc:"serve the agents behind the id-rewriting gateway: task ids differ per channel and a correlation id is added (a2amock serve --gateway overrides it)"`
	// Limits bounds what the server keeps and accepts.
	Limits LimitsSpec `yaml:"limits,omitempty" doc:"bounds on what the server keeps and accepts; absent keys keep the defaults (a2amock serve's flags of the same names override them)"`
}

// LimitsSpec bounds the server's memory and its patience with clients. An
// absent or zero key keeps the server's default.
type LimitsSpec struct {
	// MaxBodyBytes bounds request bodies.
	MaxBodyBytes uint64 `yaml:"maxBodyBytes,omitempty" doc:"largest request body in bytes; default 4194304 (4 MiB)"`
	// TaskRetention bounds the terminal tasks kept per agent.
	TaskRetention uint64 `yaml:"taskRetention,omitempty" doc:"terminal tasks kept per agent, oldest forgotten first; default 10000"`
	// TaskRetentionBytes bounds the content of the tasks kept per agent.
	TaskRetentionBytes uint64 `yaml:"taskRetentionBytes,omitempty" doc:"content bytes (parts, metadata, ids) of the tasks kept per agent: oldest terminal tasks are forgotten first, then the oldest running ones dropped (journaled); default 268435456 (256 MiB)"`
	// MaxRunningTasks caps the tasks per agent not in a terminal state.
	MaxRunningTasks uint64 `yaml:"maxRunningTasks,omitempty" doc:"tasks per agent not in a terminal state; a new task past it drops the oldest running one, journaled as dropped; default 100000"`
	// JournalRetention bounds the journal.
	JournalRetention uint64 `yaml:"journalRetention,omitempty" doc:"journal entries kept, oldest dropped first; default 100000"`
	// ReadTimeout bounds the reading of a request, body included.
	ReadTimeout Duration `yaml:"readTimeout,omitempty" doc:"time to read a whole request, body included (responses such as streams may last longer); default 30s"`
	// IdleTimeout closes kept-alive connections that carry no request.
	IdleTimeout Duration `yaml:"idleTimeout,omitempty" doc:"time a kept-alive connection may sit idle; default 60s"`
}

// AgentSpec is one hosted agent.
type AgentSpec struct {
	// Name is the agent's name and path segment (/agents/{name}).
	Name string `yaml:"name" doc:"the agent's name and URL path segment (/agents/{name})" required:"true"`
	// Card is the declared card; absent generates one from the seed and
	// Name. The fields it sets override the generated card's.
	Card *CardSpec `yaml:"card,omitempty" doc:"the declared Agent Card; absent generates one from the seed and the name, and the fields given here override the generated ones (skills, when given, replace the generated skills)"`
	// Behaviors are misbehaviors from the catalogue, applied in order.
	Behaviors []BehaviorSpec `yaml:"behaviors,omitempty" doc:"misbehaviors from the catalogue (a2amock behaviors), applied in order"`
	// EnforceAuth makes the agent require the credentials its card's
	// security requirements name (the fixed test credentials of package
	// server, e.g. bearer a2amock-test-token).
	EnforceAuth bool `yaml:"enforceAuth,omitempty" doc:"require the credentials the card's security requirements name on every A2A call (the fixed test credentials: bearer token a2amock-test-token, API key a2amock-test-key); the card stays public"`
	// Bindings are the bindings the card declares and the agent serves.
	Bindings []string `yaml:"bindings,omitempty" doc:"the bindings the card declares and the agent serves (another binding's requests are answered 404); default: JSONRPC and HTTP+JSON for a v1.0 or v0.3 card (v0.3's HTTP+JSON at {agent}/v0.3), JSONRPC for the others" enum:"JSONRPC,HTTP+JSON"`
	// Timelines script what the agent plays for the messages they match.
	Timelines []TimelineSpec `yaml:"timelines,omitempty" doc:"scripted timelines: the first that matches a message decides what the agent plays"`
}

// CardSpec is a declared Agent Card. Unset fields keep the generated value.
type CardSpec struct {
	Name             string    `yaml:"name,omitempty" doc:"card name (defaults to the agent name)"`
	Description      string    `yaml:"description,omitempty" doc:"card description"`
	Version          string    `yaml:"version,omitempty" doc:"the agent's own version"`
	Dialect          string    `yaml:"dialect,omitempty" doc:"A2A version whose card shape is served" enum:"1.0,0.3,0.2,0.1" enumnum:"1.0,0.3,0.2,0.1"`
	Provider         *Provider `yaml:"provider,omitempty" doc:"the organisation behind the agent"`
	DocumentationURL string    `yaml:"documentationUrl,omitempty" doc:"documentation URL"`
	IconURL          string    `yaml:"iconUrl,omitempty" doc:"icon URL"`
	// Capabilities are the optional protocol features declared.
	Capabilities       *CapabilitiesSpec         `yaml:"capabilities,omitempty" doc:"optional protocol features; unset ones keep the generated value"`
	DefaultInputModes  []string                  `yaml:"defaultInputModes,omitempty" doc:"media types accepted by default"`
	DefaultOutputModes []string                  `yaml:"defaultOutputModes,omitempty" doc:"media types produced by default"`
	Skills             []SkillSpec               `yaml:"skills,omitempty" doc:"the skills; when given they replace the generated ones"`
	SecuritySchemes    map[string]SecurityScheme `yaml:"securitySchemes,omitempty" doc:"declared authentication schemes by name"`
	// Security lists alternative requirements: scheme name → scopes.
	Security []map[string][]string `yaml:"security,omitempty" doc:"alternative security requirements: scheme name to scopes"`
}

// Provider is the organisation behind an agent.
type Provider struct {
	Organization string `yaml:"organization" doc:"organisation name" required:"true"`
	URL          string `yaml:"url,omitempty" doc:"organisation URL"`
}

// CapabilitiesSpec are the optional protocol features a card declares;
// nil keeps the generated value.
type CapabilitiesSpec struct {
	Streaming              *bool `yaml:"streaming,omitempty" doc:"the agent streams (SendStreamingMessage, SubscribeToTask)"`
	PushNotifications      *bool `yaml:"pushNotifications,omitempty" doc:"the agent sends push notifications"`
	StateTransitionHistory *bool `yaml:"stateTransitionHistory,omitempty" doc:"v0.2/v0.3 cards only: the agent keeps state-transition history"`
	ExtendedAgentCard      *bool `yaml:"extendedAgentCard,omitempty" doc:"the agent serves an extended card to authenticated clients"`
}

// SkillSpec is one skill of a card.
type SkillSpec struct {
	ID          string   `yaml:"id" doc:"skill id; clients name it in message metadata skillId" required:"true"`
	Name        string   `yaml:"name,omitempty" doc:"skill name (defaults to the id)"`
	Description string   `yaml:"description,omitempty" doc:"skill description"`
	Tags        []string `yaml:"tags,omitempty" doc:"tags"`
	Examples    []string `yaml:"examples,omitempty" doc:"example prompts"`
	InputModes  []string `yaml:"inputModes,omitempty" doc:"accepted media types"`
	OutputModes []string `yaml:"outputModes,omitempty" doc:"produced media types"`
	NeedsInput  bool     `yaml:"needsInput,omitempty" doc:"the honest agent parks a new task in input-required until a follow-up message continues it"`
	InputPrompt string   `yaml:"inputPrompt,omitempty" doc:"status message of that input-required state"`
	// EstimatedDuration is published through the a2amock duration extension.
	EstimatedDuration Duration `yaml:"estimatedDuration,omitempty" doc:"declared duration, published through the a2amock skill-duration card extension"`
}

// SecurityScheme is one declared authentication scheme.
type SecurityScheme struct {
	Type             string            `yaml:"type" doc:"scheme type" enum:"apiKey,http,oauth2,openIdConnect,mutualTLS" required:"true"`
	Description      string            `yaml:"description,omitempty" doc:"description"`
	In               string            `yaml:"in,omitempty" doc:"apiKey: where the key goes" enum:"header,query,cookie"`
	Name             string            `yaml:"name,omitempty" doc:"apiKey: name of the header, query parameter or cookie"`
	Scheme           string            `yaml:"scheme,omitempty" doc:"http: scheme, e.g. bearer or basic"`
	BearerFormat     string            `yaml:"bearerFormat,omitempty" doc:"http bearer: token format hint, e.g. JWT"`
	TokenURL         string            `yaml:"tokenUrl,omitempty" doc:"oauth2 client credentials: token URL"`
	Scopes           map[string]string `yaml:"scopes,omitempty" doc:"oauth2: scope to description"`
	OpenIDConnectURL string            `yaml:"openIdConnectUrl,omitempty" doc:"openIdConnect: discovery URL"`
}

// BehaviorSpec is one behavior: either the text form behaviors.Parse reads
// ("name:key=value,...") or the structured form {name, params, scope}.
type BehaviorSpec struct {
	// Text is the text form, when the entry is a string.
	Text string `yaml:"-"`
	// Name is the registered behavior name (structured form).
	Name string `yaml:"name" doc:"registered behavior name (a2amock behaviors lists them)" required:"true"`
	// Params are the behavior's own parameters; a list value is joined
	// with "|".
	Params map[string]any `yaml:"params,omitempty" doc:"the behavior's own parameters (a2amock behaviors lists them); a list stands for a|b|c"`
	// Scope limits where the behavior applies, with the scope keys every
	// behavior takes (agent, skill, op, method, dialect, binding,
	// if-metadata, unless-metadata, text, call, calls, probability).
	Scope map[string]any `yaml:"scope,omitempty" doc:"where the behavior applies: agent, skill, op, method, dialect, binding, if-metadata, unless-metadata, text, call, calls, probability"`
}

// UnmarshalYAML reads either form of a behavior entry.
func (b *BehaviorSpec) UnmarshalYAML(unmarshal func(any) error) error {
	var text string
	if err := unmarshal(&text); err == nil {
		*b = BehaviorSpec{Text: text}
		return nil
	}
	type plain BehaviorSpec
	var p plain
	if err := unmarshal(&p); err != nil {
		return err
	}
	*b = BehaviorSpec(p)
	return nil
}

// TimelineSpec is a scripted timeline and the messages it plays for.
type TimelineSpec struct {
	// Skill restricts the timeline to one skill id; absent matches every
	// skill.
	Skill string `yaml:"skill,omitempty" doc:"skill id the message addresses (metadata skillId) or, for a continuation, the skill of the continued task; absent matches every skill"`
	// Text is a regular expression the message text must match.
	Text string `yaml:"text,omitempty" doc:"regular expression (Go syntax) the message text must match"`
	// On says which messages match: new ones or continuations.
	On string `yaml:"on,omitempty" doc:"which messages: new (start a task; the default) or continuation (name a live task)" enum:"new,continuation"`
	// Answer, for a continuation, says how the agent answers it.
	Answer string `yaml:"answer,omitempty" doc:"for on: continuation, how the agent answers: continue (the default) or new-task (a fresh task id in the same context, playing these steps)" enum:"continue,new-task"`
	// Steps is what the agent plays, in order.
	Steps []StepSpec `yaml:"steps" doc:"what the agent plays, in order" required:"true"`
}

// StepSpec is one step: exactly one of state, artifact and action.
type StepSpec struct {
	// After is the delay before the step, from the previous one.
	After Duration `yaml:"after,omitempty" doc:"delay before this step, measured from the previous one"`
	// State moves the task to a state and emits a status update.
	State string `yaml:"state,omitempty" doc:"move the task to this state and emit a status update" enum:"submitted,working,input-required,auth-required,completed,failed,canceled,rejected,unknown"`
	// Message is the status message that goes with State.
	Message string `yaml:"message,omitempty" doc:"status message sent with the state"`
	// Final overrides the v0.x final flag of the status update.
	Final *bool `yaml:"final,omitempty" doc:"override the v0.x final flag (default: true on terminal and interrupted states)"`
	// Artifact adds an artifact or a chunk of one.
	Artifact *ArtifactSpec `yaml:"artifact,omitempty" doc:"emit an artifact, or a chunk of one"`
	// Append makes the artifact a chunk appended to an earlier one.
	Append bool `yaml:"append,omitempty" doc:"the artifact chunk is appended to the artifact with the same id"`
	// LastChunk marks the artifact's last chunk.
	LastChunk bool `yaml:"lastChunk,omitempty" doc:"this is the artifact's last chunk"`
	// Action is a step with no payload.
	Action string `yaml:"action,omitempty" doc:"end-stream: close every open stream of the task now, with no final event; hold-stream: keep streams open with keep-alives after the task ends; stop: stop playing, the task stays in its state for ever" enum:"end-stream,hold-stream,stop"`
	// TaskID writes another task's id into the event (the store is not
	// touched).
	TaskID string `yaml:"taskId,omitempty" doc:"write this task id into the event instead of the task's own (an event for another task; the stored task is not changed)"`
	// ContextID writes another context id into the event.
	ContextID string `yaml:"contextId,omitempty" doc:"write this context id into the event instead of the task's own"`
	// EventOnly emits the event without changing the stored task.
	EventOnly bool `yaml:"eventOnly,omitempty" doc:"emit the event without changing the stored task, so a poll and a stream disagree"`
}

// ArtifactSpec is an artifact or a chunk of one.
type ArtifactSpec struct {
	ID          string `yaml:"id,omitempty" doc:"artifact id; chunks of one artifact share it (default: result)"`
	Name        string `yaml:"name,omitempty" doc:"artifact name"`
	Description string `yaml:"description,omitempty" doc:"artifact description"`
	Text        string `yaml:"text,omitempty" doc:"a text part"`
	Data        any    `yaml:"data,omitempty" doc:"a data part (any JSON value)"`
}

// Duration is a Go duration written as text ("50ms", "2s", "1m30s").
type Duration string
