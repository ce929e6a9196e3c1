package core

import (
	"net/textproto"
	"time"

	"github.com/a2amock/a2amock/wire"
)

// PushOptions changes how one push notification is delivered.
type PushOptions struct {
	// Delay holds the delivery back (later notifications of the task wait
	// behind it, so order is kept unless a behavior reorders).
	Delay time.Duration
	// Token, when not nil, replaces the config's notification token.
	Token *string
	// Rewrite, when not nil, changes the webhook POST's headers (in place)
	// and body just before it is sent, for faults in how a notification is
	// presented rather than what it says.
	Rewrite func(h textproto.MIMEHeader, body []byte) []byte
}

// PushDeliver hands a notification on: to the next push hook, and after the
// last one to the task's webhooks.
type PushDeliver func(ev wire.Event, opts PushOptions)

// PushHooks is what push behaviors registered. Push notifications are sent
// long after the request that created the task was answered, so the server
// keeps the creating request's PushHooks with the task.
type PushHooks struct {
	// Filters see each notification in order; they call deliver zero or
	// more times, now or on a later notification (to reorder).
	Filters []func(ev wire.Event, deliver PushDeliver)
	// BeforeReply holds a unary send's reply back until the task's first
	// notification was delivered (or its delivery failed).
	BeforeReply bool
}

// Empty reports whether no push behavior registered anything.
func (p *PushHooks) Empty() bool { return p == nil || (len(p.Filters) == 0 && !p.BeforeReply) }

// OnPush registers a filter of the push notifications of the task this
// request creates.
func (x *Exchange) OnPush(f func(ev wire.Event, deliver PushDeliver)) {
	x.hooks.Push.Filters = append(x.hooks.Push.Filters, f)
}

// PushBeforeReply makes a unary send wait for the first push notification.
func (x *Exchange) PushBeforeReply() { x.hooks.Push.BeforeReply = true }

// Chain composes the filters: the returned func feeds the first filter,
// whose deliver feeds the next, the last one's deliver is final.
func (p *PushHooks) Chain(final PushDeliver) PushDeliver {
	next := final
	if p == nil {
		return next
	}
	for i := len(p.Filters) - 1; i >= 0; i-- {
		f, after := p.Filters[i], next
		next = func(ev wire.Event, opts PushOptions) {
			f(ev, func(ev wire.Event, o PushOptions) {
				// A filter that passes options on keeps the ones set
				// before it unless it sets its own.
				if o.Delay == 0 {
					o.Delay = opts.Delay
				}
				if o.Token == nil {
					o.Token = opts.Token
				}
				if o.Rewrite == nil {
					o.Rewrite = opts.Rewrite
				}
				after(ev, o)
			})
		}
	}
	return next
}

// EndsPush reports whether ev is the notification of a terminal state.
func EndsPush(ev wire.Event) bool { return ev.State().Terminal() }
