package server

import (
	"net/http"
	"slices"

	"github.com/a2amock/a2amock/wire"
)

// An agent's card declares, and the agent serves, the bindings of
// AgentConfig.Bindings: by default JSON-RPC and (v1.0 cards) HTTP+JSON.
// An agent that declares one binding only answers the other's requests as
// a real agent without that binding does: 404, no route.

// declares reports whether the agent's card declares binding b.
func (s *Server) declares(a *agent, b wire.Binding) bool {
	if a.index >= len(s.cfg.Agents) {
		return true // agents made through the control API: every binding
	}
	bs := s.cfg.Agents[a.index].Bindings
	return len(bs) == 0 || slices.Contains(bs, b)
}

// refuseUndeclared answers a request of a binding the agent's card does
// not declare, naming the ones it does, and journals it as refused.
func (s *Server) refuseUndeclared(w http.ResponseWriter, r *http.Request, a *agent, b wire.Binding, base string) error {
	return s.refuseUnrouted(w, r, a, b, wire.Errorf(wire.CodeMethodNotFound, "no route %s %s: this agent does not serve %s; its card (%s%s) declares %v",
		r.Method, r.URL.Path, b, base, cardPath, s.cfg.Agents[a.index].Bindings).WithHTTPStatus(http.StatusNotFound))
}

// BindingGRPC is the protocolBinding of the gRPC interface.
const BindingGRPC = wire.BindingGRPC
