package core

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/codecs"
)

// ScopeKeys are the keys every behavior accepts in Parse, besides its own
// parameters.
var ScopeKeys = []string{"agent", "skill", "op", "method", "dialect", "binding",
	"if-metadata", "unless-metadata", "text", "call", "calls", "probability"}

// Scope limits where a behavior applies. The zero Scope matches every
// request.
type Scope struct {
	// Agent and Skill restrict to one agent and one skill.
	Agent string
	Skill string
	// Ops, Methods, Dialects and Bindings restrict by what was asked and how.
	Ops      []wire.Op
	Methods  []string
	Dialects []wire.Dialect
	Bindings []wire.Binding
	// IfMetadata requires the message metadata key to be present;
	// UnlessMetadata requires it to be absent.
	IfMetadata     string
	UnlessMetadata string
	// Text requires the message text to match.
	Text *regexp.Regexp
	// CallFrom and CallTo restrict to the agent's nth..mth request of the
	// same operation (1-based, inclusive; 0 means unbounded).
	CallFrom, CallTo int
	// Probability applies the behavior to that fraction of matching
	// requests, drawn from the run's seed; 0 means always.
	Probability float64
}

// Matches reports whether x is in scope (Miss says why not).
func (s Scope) Matches(x *Exchange) bool {
	key, _ := s.Miss(x)
	return key == ""
}

// set applies one scope key from Parse; it reports false for keys that are
// not scope keys.
func (s *Scope) set(key, val string) (bool, error) {
	list := func() []string { return strings.Split(val, "|") }
	switch key {
	case "agent":
		s.Agent = val
	case "skill":
		s.Skill = val
	case "op":
		for _, v := range list() {
			if !slices.Contains(knownOps, wire.Op(v)) {
				return true, fmt.Errorf("%q is not an op (%s)", v, joinAny(knownOps))
			}
			s.Ops = append(s.Ops, wire.Op(v))
		}
	case "method":
		for _, v := range list() {
			if v == "" {
				return true, fmt.Errorf("%q has an empty method name, which no request has (e.g. message/send|SendMessage)", val)
			}
			s.Methods = append(s.Methods, v)
		}
	case "dialect":
		for _, v := range list() {
			d := wire.Dialect(v)
			if codecs.For(d) == nil {
				return true, fmt.Errorf("%q is not a dialect (%s)", v, wire.DialectNames(", ", ", "))
			}
			s.Dialects = append(s.Dialects, d)
		}
	case "binding":
		for _, v := range list() {
			b := wire.Binding(v)
			if b != wire.BindingJSONRPC && b != wire.BindingREST && b != wire.BindingGRPC {
				return true, fmt.Errorf("%q is not a binding (JSONRPC, HTTP+JSON, GRPC)", v)
			}
			s.Bindings = append(s.Bindings, b)
		}
	case "if-metadata":
		s.IfMetadata = val
	case "unless-metadata":
		s.UnlessMetadata = val
	case "text":
		re, err := regexp.Compile(val)
		if err != nil {
			return true, fmt.Errorf("%q is not a regular expression: %v", val, err)
		}
		s.Text = re
	case "call":
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 {
			return true, fmt.Errorf("%q is not a call number (1, 2, ...)", val)
		}
		s.CallFrom, s.CallTo = n, n
	case "calls":
		from, to, ok := strings.Cut(val, "-")
		n, err1 := strconv.Atoi(from)
		m := 0
		var err2 error
		if ok && to != "" {
			m, err2 = strconv.Atoi(to)
		}
		if err1 != nil || err2 != nil || n < 1 || (m != 0 && m < n) {
			return true, fmt.Errorf("%q is not a call range (n-m, or n- for n onwards)", val)
		}
		s.CallFrom, s.CallTo = n, m
	case "probability":
		// 0 is refused, not read as the zero Scope's "always": a behavior
		// for no request at all is left out instead.
		p, err := strconv.ParseFloat(val, 64)
		if err != nil || !(p > 0 && p <= 1) {
			return true, fmt.Errorf("%q is not a probability above 0 and at most 1 (to apply a behavior to no request, leave it out)", val)
		}
		s.Probability = p
	default:
		return false, nil
	}
	return true, nil
}

// Scoped is a behavior limited to a scope. Parse returns one.
type Scoped struct {
	Behavior Behavior
	Scope    Scope
	// Name is the behavior's registered name; Text the spec it was parsed
	// from.
	Name string
	Text string
}

// ForOtherAgent reports whether the scope names an agent other than the one
// the behavior is set on: an agent's behaviors see only its own requests,
// so such a behavior would never act.
func (s *Scoped) ForOtherAgent(agent string) bool {
	return s.Scope.Agent != "" && s.Scope.Agent != agent
}

// Apply applies the wrapped behavior when x is in scope.
func (s *Scoped) Apply(x *Exchange) {
	if s.Scope.Matches(x) {
		ApplyScoped(x, s.Text, s)
	}
}

// Reset resets the wrapped behavior's state, if it keeps any.
func (s *Scoped) Reset() {
	if r, ok := s.Behavior.(Resetter); ok {
		r.Reset()
	}
}

// String returns the spec text the behavior was parsed from.
func (s *Scoped) String() string { return s.Text }
