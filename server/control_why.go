package server

import (
	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/server/internal/acted"
	"github.com/a2amock/a2amock/server/internal/streaming"
)

// noteBehaviors writes what the behaviors did into the request's journal
// entry (journaled before the behaviors ran) and counts it.
func (s *Server) noteBehaviors(a *agent, seq int64, rep acted.Report) {
	if len(rep.Acted) > 0 || len(rep.Skipped) > 0 {
		s.journal.Amend(seq, func(e *Entry) { e.Behaviors, e.Skipped = rep.Acted, rep.Skipped })
	}
	s.countBehaviors(a, rep)
}

// countBehaviors counts the behaviors that acted and skipped in the
// metrics.
func (s *Server) countBehaviors(a *agent, rep acted.Report) {
	if len(rep.Acted) > 0 || len(rep.Skipped) > 0 {
		s.metrics.Behaviors(a.name, rep.Names, rep.Skipped)
	}
}

// instrument wraps the hooks of x (package acted) so that each behavior
// that acts is named on the request entry numbered seq; a stream-end hook
// that writes raw bytes is named on the stream's delivery too.
func (s *Server) instrument(x *behaviors.Exchange, own acted.Owners, seq int64) *acted.Log {
	if !acted.Hooked(x) {
		return nil
	}
	amend := func(list []ActedBehavior) { s.journal.Amend(seq, func(e *Entry) { e.Acted = list }) }
	return acted.Instrument(x, own, amend, streaming.SetEndOwner)
}
