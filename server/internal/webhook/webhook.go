// Package webhook sends push notifications: it renders a task's event in
// the dialect the task was created in, POSTs it to the config's URL with
// the dialect's token header, retries as configured and reports every
// attempt. It also decides which webhook hosts may be dialed at all
// (Policy), so that a scenario cannot turn the mock into a request
// forwarder, and keeps credentials out of what it reports.
//
// The queueing and ordering of notifications are the engine's (its push
// queue); this package sends one notification at a time.
package webhook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/textproto"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/a2amock/a2amock/engine"
	"github.com/a2amock/a2amock/journal"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
	"github.com/a2amock/a2amock/wire/codecs"
)

// Policy says which webhook hosts the mock may dial: loopback always,
// the hosts and prefixes of AllowTo, any host with AllowAny; reserved
// test names (RFC 2606/6761) may be stored but are never dialed.
type Policy struct {
	AllowAny bool
	AllowTo  []string
}

// Sender delivers notifications: each POST is bounded by Timeout, and a
// failed one is retried Retries times, Backoff doubling between attempts.
type Sender struct {
	Policy  Policy
	Timeout time.Duration
	Retries int
	Backoff time.Duration
	// Clock times the delays and backoffs; Context ends them (and the
	// POSTs) when the server closes.
	Clock   timeline.Clock
	Context context.Context
}

// WithDefaults is s with its zero or out-of-range settings replaced by the
// defaults: a 2s timeout, 0 to 10 retries, a 100ms backoff.
func (s Sender) WithDefaults() Sender {
	if s.Timeout <= 0 {
		s.Timeout = 2 * time.Second
	}
	s.Retries = min(max(s.Retries, 0), 10)
	if s.Backoff <= 0 {
		s.Backoff = 100 * time.Millisecond
	}
	return s
}

// FirstBound bounds the time the first notification of a task may take,
// every retry and backoff included, with a second to spare.
func (s Sender) FirstBound() time.Duration {
	return time.Duration(s.Retries+1)*s.Timeout + s.Backoff<<s.Retries + time.Second
}

// Deliver POSTs one notification (s must have its defaults: WithDefaults),
// retrying when configured, and reports every attempt to rec: the
// webhook's status (0 when none) and what happened, with no credential in
// it.
func (s Sender) Deliver(job engine.PushJob, rec func(status int, detail string)) {
	if job.Options.Delay > 0 {
		if !timeline.Sleep(s.Context, s.Clock, job.Options.Delay) {
			rec(0, "not delivered: server closed during the delay")
			return
		}
	}
	target, err := s.Policy.target(job.Config.URL)
	if err != nil {
		rec(0, "not delivered: "+err.Error())
		return
	}
	desc := wire.Describe(job.Dialect)
	if desc.Dialect == "" {
		desc = wire.Describe(wire.Newest())
	}
	codec := codecs.For(desc.Dialect)
	body, encErr := codec.EncodePush(job.Event)
	if encErr != nil {
		rec(0, "not delivered: encode: "+encErr.Error())
		return
	}
	ct, tokenHeader := desc.PushContentType, desc.PushTokenHeader
	token := job.Config.Token
	if job.Options.Token != nil {
		token = *job.Options.Token
	}
	for attempt := 0; ; attempt++ {
		status, err := post(s.Context, target, job.Config, body, ct, tokenHeader, token, s.Timeout, job.Options.Rewrite)
		what := fmt.Sprintf("attempt %d/%d: ", attempt+1, s.Retries+1)
		switch {
		case err != nil:
			rec(0, what+redactError(err, job.Config.URL))
		case status < 200 || status > 299:
			rec(status, what+"webhook answered "+http.StatusText(status))
		default:
			rec(status, what+"delivered")
			return
		}
		if attempt >= s.Retries || s.Context.Err() != nil {
			return
		}
		if !timeline.Sleep(s.Context, s.Clock, s.Backoff<<attempt) {
			return
		}
	}
}

type loopbackOnlyKey struct{}

// pushClient dials webhooks; loopback-only targets are checked again at dial
// time, so a name that resolves elsewhere (DNS rebinding) is refused.
// Keep-alives are off so that no idle connection outlives a delivery.
var pushClient = &http.Client{
	Transport: &http.Transport{
		Proxy:             nil,
		DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			d := net.Dialer{Timeout: 2 * time.Second}
			if only, _ := ctx.Value(loopbackOnlyKey{}).(bool); only {
				d.Control = func(_, address string, _ syscall.RawConn) error {
					ap, err := netip.ParseAddrPort(address)
					if err != nil || !ap.Addr().Unmap().IsLoopback() {
						return fmt.Errorf("webhook address %s is not loopback", address)
					}
					return nil
				}
			}
			return d.DialContext(ctx, network, addr)
		},
		ResponseHeaderTimeout: 30 * time.Second,
	},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// target is a webhook URL checked for delivery.
type target struct {
	url          string
	loopbackOnly bool
}

// post sends one notification; the answer's status, or the error.
func post(ctx context.Context, t target, pc wire.PushConfig, body []byte, ct, tokenHeader, token string, timeout time.Duration,
	rewrite func(textproto.MIMEHeader, []byte) []byte) (int, error) {
	ctx, cancel := context.WithTimeout(context.WithValue(ctx, loopbackOnlyKey{}, t.loopbackOnly), timeout)
	defer cancel()
	h := http.Header{}
	h.Set("Content-Type", ct)
	if token != "" {
		h.Set(tokenHeader, token)
	}
	if len(pc.AuthSchemes) > 0 && pc.AuthCredentials != "" {
		h.Set("Authorization", pc.AuthSchemes[0]+" "+pc.AuthCredentials)
	}
	if rewrite != nil {
		body = rewrite(textproto.MIMEHeader(h), slices.Clone(body))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, strings.NewReader(string(body)))
	if err != nil {
		return 0, err
	}
	req.Header = h
	resp, err := pushClient.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// hostClass says what the mock may do with a webhook host.
type hostClass int

const (
	hostRefused  hostClass = iota
	hostLoopback           // dial, and check the address is loopback
	hostAllowed            // dial anywhere: configured explicitly
	hostReserved           // store, never dial: a reserved test name
)

func (p Policy) classify(host string) hostClass {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if ip, err := netip.ParseAddr(h); err == nil && ip.Unmap().IsLoopback() {
		return hostLoopback
	}
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return hostLoopback
	}
	if p.AllowAny {
		return hostAllowed
	}
	for _, allowed := range p.AllowTo {
		allowed = strings.ToLower(strings.TrimSpace(allowed))
		if allowed == h {
			return hostAllowed
		}
		if pre, err := netip.ParsePrefix(allowed); err == nil {
			if ip, err := netip.ParseAddr(h); err == nil && pre.Contains(ip.Unmap()) {
				return hostAllowed
			}
		}
	}
	// RFC 2606/6761 names never reach the Internet: a config may name them
	// (tests of the config methods do), but nothing is ever sent there.
	for _, tld := range []string{".example", ".test", ".invalid"} {
		if strings.HasSuffix(h, tld) || h == tld[1:] {
			return hostReserved
		}
	}
	for _, d := range []string{"example.com", "example.net", "example.org"} {
		if h == d || strings.HasSuffix(h, "."+d) {
			return hostReserved
		}
	}
	return hostRefused
}

// CheckURL validates a webhook URL when a config is set, so a scenario
// cannot turn the mock into a request forwarder. field names the URL's
// parameter in the request's dialect.
func (p Policy) CheckURL(raw, field string) *wire.Error {
	u, err := url.Parse(raw)
	if err != nil || raw == "" {
		return wire.ErrInvalidParams(field, "is not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return wire.ErrInvalidParams(field, fmt.Sprintf("scheme %q is not http or https", u.Scheme))
	}
	if u.Hostname() == "" {
		return wire.ErrInvalidParams(field, "has no host")
	}
	if p.classify(u.Hostname()) == hostRefused {
		return wire.ErrInvalidParams(field, fmt.Sprintf("host %q is not loopback: the mock sends push notifications only to loopback hosts unless configured to allow others (AllowPushTo, AllowAnyPushHost)", u.Hostname()))
	}
	return nil
}

var errReservedHost = errors.New("the host is a reserved example/test name, never dialed")

// target checks a stored URL again at delivery time (the allowance may
// have been configured differently when it was stored).
func (p Policy) target(raw string) (target, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return target{}, errors.New("the URL is not an http(s) URL")
	}
	switch p.classify(u.Hostname()) {
	case hostLoopback:
		return target{url: raw, loopbackOnly: true}, nil
	case hostAllowed:
		return target{url: raw}, nil
	case hostReserved:
		return target{}, errReservedHost
	}
	return target{}, errors.New("the host is not allowed")
}

// RedactURL keeps scheme, host and path: userinfo and query may carry
// credentials, which never go to the journal.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	r := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	return r.String()
}

// redactError removes the URL (which may carry credentials) from a client
// error.
func redactError(err error, raw string) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := err.Error()
	if raw != "" {
		msg = strings.ReplaceAll(msg, raw, RedactURL(raw))
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out: " + msg
	}
	return msg
}

// DeliverJournaled is Deliver with every attempt journaled through record
// as an EntryPush of agent: the webhook's status, and the config, its
// redacted URL and what happened as Detail.
func (s Sender) DeliverJournaled(agent string, job engine.PushJob, record func(journal.Entry) int64) {
	s.Deliver(job, func(status int, detail string) {
		e := journal.Entry{Agent: agent, Kind: journal.EntryPush, Dialect: job.Dialect, TaskID: job.Event.TaskID(),
			State: job.Event.State(), HTTP: status, Detail: "config " + job.Config.ID + " " + RedactURL(job.Config.URL) + ": " + detail}
		if job.Event.Artifact != nil {
			e.Detail += " (artifact " + job.Event.Artifact.Artifact.ArtifactID + ")"
		}
		record(e)
	})
}
