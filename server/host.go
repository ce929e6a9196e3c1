package server

import (
	"context"
	"net/http"
	"time"

	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// bindingHost is the server's core as its bindings see it
// (binding.Host): a separate type, so that the methods the bindings call
// are not part of the Server's API.
type bindingHost struct{ s *Server }

// Serve implements binding.Host; a is one of the server's agents.
func (h bindingHost) Serve(w http.ResponseWriter, r *http.Request, a binding.Agent, base string, req *wire.Request, rp binding.Reply) error {
	return h.s.answer.Request(w, r, a.(*agent), base, req, rp)
}

// Refused implements binding.Host; a is one of the server's agents.
func (h bindingHost) Refused(w http.ResponseWriter, r *http.Request, a binding.Agent, req *wire.Request, e *wire.Error) {
	h.s.rec.Refused(w, r, a.(*agent).name, req, e)
}

// CheckVersion implements binding.Host.
func (h bindingHost) CheckVersion(r *http.Request, d wire.Dialect) *wire.Error {
	return h.s.checkVersion(r, d)
}

// MaxBodyBytes implements binding.Host.
func (h bindingHost) MaxBodyBytes() int64 { return h.s.cfg.MaxBodyBytes }

// Clock implements binding.Host.
func (h bindingHost) Clock() timeline.Clock { return h.s.clock }

// TenantAgent implements binding.Host: the tenant is a hosted agent's name.
func (h bindingHost) TenantAgent(tenant string) (binding.Agent, string, bool) {
	a, ok := h.s.agents.Lookup(tenant)
	return a, h.s.AgentPath(tenant), ok
}

// AgentNames implements binding.Host.
func (h bindingHost) AgentNames() []string { return h.s.AgentNames() }

// Wait implements binding.Host.
func (h bindingHost) Wait(ctx context.Context, d time.Duration) bool { return h.s.delay(ctx, d) }
