package server

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
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
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

type pushSettings struct {
	timeout time.Duration
	retries int
	backoff time.Duration
}

func (s *Server) pushSettings() pushSettings {
	p := pushSettings{timeout: s.cfg.PushTimeout, retries: s.cfg.PushRetries, backoff: s.cfg.PushBackoff}
	if p.timeout <= 0 {
		p.timeout = 2 * time.Second
	}
	if p.retries < 0 {
		p.retries = 0
	}
	p.retries = min(p.retries, 10)
	if p.backoff <= 0 {
		p.backoff = 100 * time.Millisecond
	}
	return p
}

// deliverPush POSTs one notification, retrying when configured, and
// journals every attempt.
func (s *Server) deliverPush(agentName string, job engine.PushJob) {
	rec := func(status int, detail string) {
		e := Entry{Agent: agentName, Kind: EntryPush, Dialect: job.Dialect, TaskID: job.Event.TaskID(),
			State: job.Event.State(), HTTP: status, Detail: "config " + job.Config.ID + " " + redactURL(job.Config.URL) + ": " + detail}
		if job.Event.Artifact != nil {
			e.Detail += " (artifact " + job.Event.Artifact.Artifact.ArtifactID + ")"
		}
		s.record(e)
	}
	if job.Options.Delay > 0 {
		if !timeline.Sleep(s.ctx, s.clock, job.Options.Delay) {
			rec(0, "not delivered: server closed during the delay")
			return
		}
	}
	target, err := s.pushTarget(job.Config.URL)
	if err != nil {
		rec(0, "not delivered: "+err.Error())
		return
	}
	desc := wire.Describe(job.Dialect)
	if desc.Dialect == "" {
		desc = wire.Describe(wire.Newest())
	}
	codec := wire.CodecFor(desc.Dialect)
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
	ps := s.pushSettings()
	for attempt := 0; ; attempt++ {
		status, err := s.postPush(target, job.Config, body, ct, tokenHeader, token, ps.timeout, job.Options.Rewrite)
		what := fmt.Sprintf("attempt %d/%d: ", attempt+1, ps.retries+1)
		switch {
		case err != nil:
			rec(0, what+redactError(err, job.Config.URL))
		case status < 200 || status > 299:
			rec(status, what+"webhook answered "+http.StatusText(status))
		default:
			rec(status, what+"delivered")
			return
		}
		if attempt >= ps.retries || s.ctx.Err() != nil {
			return
		}
		if !timeline.Sleep(s.ctx, s.clock, ps.backoff<<attempt) {
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

type pushTarget struct {
	url          string
	loopbackOnly bool
}

func (s *Server) postPush(t pushTarget, pc wire.PushConfig, body []byte, ct, tokenHeader, token string, timeout time.Duration,
	rewrite func(textproto.MIMEHeader, []byte) []byte) (int, error) {
	ctx, cancel := context.WithTimeout(context.WithValue(s.ctx, loopbackOnlyKey{}, t.loopbackOnly), timeout)
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

func (s *Server) classifyHost(host string) hostClass {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if ip, err := netip.ParseAddr(h); err == nil && ip.Unmap().IsLoopback() {
		return hostLoopback
	}
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return hostLoopback
	}
	if s.cfg.AllowAnyPushHost {
		return hostAllowed
	}
	for _, allowed := range s.cfg.AllowPushTo {
		allowed = strings.ToLower(strings.TrimSpace(allowed))
		if allowed == h {
			return hostAllowed
		}
		if p, err := netip.ParsePrefix(allowed); err == nil {
			if ip, err := netip.ParseAddr(h); err == nil && p.Contains(ip.Unmap()) {
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

// checkPushURL validates a webhook URL when a config is set, so a scenario
// cannot turn the mock into a request forwarder. field names the URL's
// parameter in the request's dialect.
func (s *Server) checkPushURL(raw, field string) *wire.Error {
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
	if s.classifyHost(u.Hostname()) == hostRefused {
		return wire.ErrInvalidParams(field, fmt.Sprintf("host %q is not loopback: the mock sends push notifications only to loopback hosts unless configured to allow others (AllowPushTo, AllowAnyPushHost)", u.Hostname()))
	}
	return nil
}

var errReservedHost = errors.New("the host is a reserved example/test name, never dialed")

// pushTarget checks a stored URL again at delivery time (the allowance may
// have been configured differently when it was stored).
func (s *Server) pushTarget(raw string) (pushTarget, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return pushTarget{}, errors.New("the URL is not an http(s) URL")
	}
	switch s.classifyHost(u.Hostname()) {
	case hostLoopback:
		return pushTarget{url: raw, loopbackOnly: true}, nil
	case hostAllowed:
		return pushTarget{url: raw}, nil
	case hostReserved:
		return pushTarget{}, errReservedHost
	}
	return pushTarget{}, errors.New("the host is not allowed")
}

// redactURL keeps scheme, host and path: userinfo and query may carry
// credentials, which never go to the journal.
func redactURL(raw string) string {
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
		msg = strings.ReplaceAll(msg, raw, redactURL(raw))
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out: " + msg
	}
	return msg
}
