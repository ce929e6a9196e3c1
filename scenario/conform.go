package scenario

// ConformSpec is the part of a scenario file that a2amock conform reads: how
// the client under test is driven (prompt, input, mode, deadline), which
// outcomes are truthful and which checks judge it. A scenario without it is
// served as usual and ignored by conform; see docs/conformance.md.
type ConformSpec struct {
	// ID names the scenario in reports, baselines and --scenario.
	ID string `yaml:"id" doc:"scenario id used in reports, baselines and --scenario (lower-case words joined by -)" required:"true"`
	// Title is a one-line summary.
	Title string `yaml:"title,omitempty" doc:"one-line summary of the misbehavior"`
	// Reproduces is the field failure the scenario reproduces.
	Reproduces string `yaml:"reproduces,omitempty" doc:"the field failure the scenario reproduces"`
	// Source names the public issue, incident or spec section it comes from.
	Source string `yaml:"source,omitempty" doc:"the public issue, incident or spec section the failure comes from"`
	// Robust says what a robust client does.
	Robust string `yaml:"robust,omitempty" doc:"what a robust client does"`
	// Prompt is the text of the first message (A2AMOCK_PROMPT).
	Prompt string `yaml:"prompt,omitempty" doc:"text of the first message the client sends (A2AMOCK_PROMPT); default: Hello"`
	// Input answers input-required (A2AMOCK_INPUT).
	Input string `yaml:"input,omitempty" doc:"what the client answers to input-required (A2AMOCK_INPUT); default: account 42"`
	// Mode is a hint for the client (A2AMOCK_MODE).
	Mode string `yaml:"mode,omitempty" doc:"hint for the client (A2AMOCK_MODE); a client may ignore it" enum:"send,stream,poll"`
	// Deadline is how long the client should allow the task
	// (A2AMOCK_DEADLINE_MS).
	Deadline Duration `yaml:"deadline,omitempty" doc:"how long the client allows the task before it cancels and reports timeout (A2AMOCK_DEADLINE_MS); default 5s"`
	// Outcomes are the outcomes a truthful client may report.
	Outcomes []string `yaml:"outcomes,omitempty" doc:"outcomes a truthful client may report; default: completed" enum:"completed,failed,canceled,rejected,input-required,auth-required,diverged,timeout,error"`
	// Checks are the checks that judge the run, besides the four every
	// scenario has (exits-in-time, no-crash, truthful-outcome, no-orphans).
	Checks []string `yaml:"checks,omitempty" doc:"checks that judge the run besides exits-in-time, no-crash, truthful-outcome and no-orphans (a2amock conform --list shows them)"`
	// MaxPolls bounds GetTask calls per task for bounded-polling.
	MaxPolls int `yaml:"maxPolls,omitempty" doc:"bounded-polling: most GetTask calls per task; default 40"`
	// CardChange changes an agent's card while the client runs.
	CardChange *CardChangeSpec `yaml:"cardChange,omitempty" doc:"change an agent's card while the client runs (check card-refetched-on-change)"`
}

// CardChangeSpec changes an agent's card mid-run: when the agent receives
// the client's AtMessage-th message (SendMessage or SendStreamingMessage),
// before serving it, the runner journals a note (kind note, detail
// card-change: …) and adds Behaviors to the agent's, so the card it serves
// from then on differs (and its ETag with it).
type CardChangeSpec struct {
	// Agent is the agent whose card changes; default the first.
	Agent string `yaml:"agent,omitempty" doc:"the agent whose card changes; default: the first agent"`
	// AtMessage is the message of the client that triggers the change.
	AtMessage int `yaml:"atMessage,omitempty" doc:"the change is made when the agent receives the client's nth message (SendMessage or SendStreamingMessage), before it is served; default 1"`
	// Behaviors are added to the agent's at the change (catalogue text
	// form, e.g. card-underclaims:claims=pushNotifications).
	Behaviors []string `yaml:"behaviors" doc:"behaviors (text form) added to the agent's at the change; they change the served card, e.g. card-underclaims:claims=pushNotifications" required:"true"`
}

// Position returns the line and column where the value at path starts
// (e.g. conform.checks[2]), or of the nearest enclosing value that has one;
// 0, 0 when the scenario was not parsed from text.
func (s *Scenario) Position(path string) (line, column int) {
	if s.pos == nil {
		return 0, 0
	}
	p := s.pos.at(path)
	return p.Line, p.Column
}
