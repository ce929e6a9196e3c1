package lifecycle

import (
	"errors"
	"time"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

var stuckSubmittedSpec = core.Spec{
	Name: "stuck-submitted",
	Doc: `Reproduces agents that acknowledge a message and never start work: the
task stays submitted for ever, or (with for / beyond-estimate) only moves on
after the skill's declared estimated duration has passed. Tests that a client
without an observed working state does not assume the agent is slow: it
probes with GetTask and escalates once submitted outlasts the declared
duration.`,
	New: func() core.Behavior { return &StuckSubmitted{} },
}

// StuckSubmitted holds tasks in submitted. It tests the client's deadline on
// the first observed transition, which the card's estimated duration only
// hints at.
type StuckSubmitted struct {
	// For is how long the task stays submitted; with BeyondEstimate the
	// skill's estimated duration is added. Zero in total means for ever.
	For time.Duration `param:"for" doc:"how long the task stays submitted before its timeline goes on; 0 (with beyond-estimate false) means for ever"`
	// BeyondEstimate adds the skill's declared estimated duration to For.
	BeyondEstimate bool `param:"beyond-estimate" doc:"add the skill's declared estimatedDuration to for, so the task leaves submitted only after the card said it would be done"`
}

// Validate implements Validator.
func (b *StuckSubmitted) Validate() error {
	if b.For < 0 {
		return errors.New("for must not be negative")
	}
	return nil
}

// Apply implements Behavior.
func (b *StuckSubmitted) Apply(x *core.Exchange) {
	hold := b.For
	if b.BeyondEstimate && x.Skill != nil {
		hold += x.Skill.EstimatedDuration
	}
	x.OnPlan(func(tl timeline.Timeline) timeline.Timeline {
		head, rest := timeline.Timeline(nil), tl
		if cut, ok := cutAfterState(tl, wire.StateSubmitted); ok {
			head, rest = cut, tl[len(cut):]
		}
		// A continuation of a stuck task has no submitted step: it must
		// not unstick the task either.
		if hold <= 0 {
			return head
		}
		rest = rest.Clone()
		if len(rest) > 0 {
			rest[0].After += hold
		}
		return append(head, rest...)
	})
}
