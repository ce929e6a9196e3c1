package server

import (
	"github.com/a2amock/a2amock/engine"
	"github.com/a2amock/a2amock/server/internal/webhook"
)

// Push notification delivery.
//
// Every state change and artifact update of a task with push configs is
// rendered in the dialect the task was created in and POSTed to each config's
// URL. Deliveries of one task go through one ordered queue drained by a
// goroutine the server's Close waits for, so a slow or hung webhook never
// holds the task back, and every POST is bounded by Config.PushTimeout.
//
// Headers: v1.0 sends `A2A-Notification-Token` (as a2a-go v2 does) and
// content type application/a2a+json (the spec's); v0.x sends
// `X-A2A-Notification-Token` (the v0.3 docs' example, a2a-python) and
// application/json. `Authorization: <scheme> <credentials>` is added when
// the config carries both.
const (
	// PushTokenHeaderV10 is the notification-token header of v1.0 pushes.
	PushTokenHeaderV10 = "A2A-Notification-Token"
	// PushTokenHeaderV0 is the notification-token header of v0.x pushes.
	PushTokenHeaderV0 = "X-A2A-Notification-Token"
)

// pushDeliverer is the engines' Deliverer: it POSTs notifications.
type pushDeliverer struct{ s *Server }

// Deliver POSTs one notification (engine.Deliverer).
func (d pushDeliverer) Deliver(agent string, job engine.PushJob) { d.s.deliverPush(agent, job) }

// pushSender is the server's webhook sender, with its settings' defaults.
func (s *Server) pushSender() webhook.Sender {
	return webhook.Sender{
		Policy:  webhook.Policy{AllowAny: s.cfg.AllowAnyPushHost, AllowTo: s.cfg.AllowPushTo},
		Timeout: s.cfg.PushTimeout, Retries: s.cfg.PushRetries, Backoff: s.cfg.PushBackoff,
		Clock: s.clock, Context: s.ctx,
	}.WithDefaults()
}

// deliverPush POSTs one notification, retrying when configured, and
// journals every attempt.
func (s *Server) deliverPush(agentName string, job engine.PushJob) {
	s.pushSender().DeliverJournaled(agentName, job, s.rec.Record)
}
