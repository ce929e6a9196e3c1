// Package behaviors is the catalogue of pluggable misbehaviors: ways real A2A
// agents break what their Agent Card declares, reproducible on demand.
//
// The behaviors are grouped by kind in subpackages: protocol behaviors,
// which change what the agent says and work the same on every binding
// (lifecycle: decisions, timelines, results; stream: the events of a
// stream and, for the HTTP bindings, their SSE framing; card; push), and
// transport behaviors, which change how the answer travels and act through
// the Transport interface each binding implements (transport). Their
// common API (Exchange, the hooks and their composition rules, Transport,
// Registry, Scope) is package core's, re-exported here; see its doc.
// Catalogue and Parse give the built-in behaviors.
package behaviors

import "github.com/a2amock/a2amock/behaviors/core"

// The core API, re-exported: see package core for each one's doc.
type (
	// Behavior is one misbehavior (core.Behavior).
	Behavior = core.Behavior
	// Exchange is one request as the behaviors see it (core.Exchange).
	Exchange = core.Exchange
	// Hooks is what the behaviors of one exchange registered (core.Hooks).
	Hooks = core.Hooks
	// NotActed is a behavior in scope that left a request alone
	// (core.NotActed).
	NotActed = core.NotActed
	// CardSigning is an agent's card-signing material (core.CardSigning).
	CardSigning = core.CardSigning
	// RawStream gives stream faults byte-level control (core.RawStream).
	RawStream = core.RawStream
	// Transport is a binding's carrier of transport faults
	// (core.Transport).
	Transport = core.Transport
	// Incoming is how a request arrived (core.Incoming).
	Incoming = core.Incoming
	// Failure is an answer sent in place of the agent's (core.Failure).
	Failure = core.Failure
	// Phase is where in an answer a delay falls (core.Phase).
	Phase = core.Phase
	// PushOptions changes how one push notification is delivered
	// (core.PushOptions).
	PushOptions = core.PushOptions
	// PushDeliver hands a notification on (core.PushDeliver).
	PushDeliver = core.PushDeliver
	// PushHooks is what push behaviors registered (core.PushHooks).
	PushHooks = core.PushHooks
	// Registry maps behavior names to specs (core.Registry).
	Registry = core.Registry
	// Spec describes one behavior for a registry (core.Spec).
	Spec = core.Spec
	// Param is one parameter of a behavior (core.Param).
	Param = core.Param
	// Validator is a behavior that checks its parameters (core.Validator).
	Validator = core.Validator
	// Resetter is a behavior with state a reset clears (core.Resetter).
	Resetter = core.Resetter
	// Scope limits where a behavior applies (core.Scope).
	Scope = core.Scope
	// Scoped is a behavior limited to a scope (core.Scoped).
	Scoped = core.Scoped
)

// The phases of Transport.Delay and the card fetch's pseudo-operation.
const (
	// PhaseStart holds the whole answer back (core.PhaseStart).
	PhaseStart = core.PhaseStart
	// PhaseBody holds the body back after the headers (core.PhaseBody).
	PhaseBody = core.PhaseBody
	// OpCard is the pseudo-operation of an Agent Card fetch (core.OpCard).
	OpCard = core.OpCard
)

// ScopeKeys are the keys every behavior accepts besides its own
// parameters (core.ScopeKeys).
var ScopeKeys = core.ScopeKeys

// NewRegistry returns an empty registry (core.NewRegistry).
func NewRegistry() *Registry { return core.NewRegistry() }

// ApplyAs applies b to x as the behavior named name (core.ApplyAs).
func ApplyAs(x *Exchange, name string, b Behavior) { core.ApplyAs(x, name, b) }

// ApplyScoped applies s's behavior to x, found in its scope
// (core.ApplyScoped).
func ApplyScoped(x *Exchange, name string, s *Scoped) { core.ApplyScoped(x, name, s) }

// Describe renders r as a Markdown catalogue (core.Describe).
func Describe(r *Registry) string { return core.Describe(r) }

// Summary renders r as the README's one-line-per-behavior table
// (core.Summary).
func Summary(r *Registry) string { return core.Summary(r) }

// SpliceSummary replaces the catalogue summary between the README's
// markers (core.SpliceSummary).
func SpliceSummary(doc, summary string) (string, error) { return core.SpliceSummary(doc, summary) }
