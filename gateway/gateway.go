// Package gateway is a reverse proxy that sits in front of an A2A agent (an
// a2amock server or any other) the way a multi-tenant gateway does: it
// rewrites task ids in every direction and stamps a correlation id on what
// it returns.
//
// Upstream task ids never reach the client. Each channel — unary replies,
// SSE streams, push notifications — gets its own client-facing alias of a
// task, derived deterministically from the seed, the channel and the
// upstream id; requests may use any alias. The correlation id is the same on
// every channel: it is sent as the X-Correlation-Id header of unary replies
// and push notifications and as metadata["correlationId"] of every task,
// status update and artifact update. A client that keys its ledger by task
// id therefore sees one task per channel, and only a client keyed by the
// correlation id (reconcile.ByCorrelationID) sees one task.
//
// Push configs are rewritten too: the client's webhook URL is replaced by
// one of the gateway's, which rewrites each notification and forwards it to
// the client's webhook (loopback only unless Config.AllowAnyPushHost). The
// gateway's webhook URLs carry a key, so only the upstream agent can push
// through them, and a redirect from the client's webhook is not followed.
package gateway

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// CorrelationHeader is the header carrying the correlation id.
const CorrelationHeader = "X-Correlation-Id"

// CorrelationMetadataKey is the metadata key carrying the correlation id.
const CorrelationMetadataKey = "correlationId"

// The channels a task id alias belongs to.
const (
	ChannelReply  = "reply"
	ChannelStream = "stream"
	ChannelPush   = "push"
)

const pushPrefix = "/_gateway/push/"

// maxBody bounds the request and notification bodies the gateway reads; a
// larger one is refused (413) rather than forwarded cut.
const maxBody = 8 << 20

// Config configures a Gateway.
type Config struct {
	// Upstream is the base URL of the agent server, e.g.
	// http://127.0.0.1:41234.
	Upstream string
	// Seed drives the aliases and correlation ids.
	Seed uint64
	// Client makes the upstream calls and push forwards; nil is a client
	// of the gateway's own with a 30s timeout.
	Client *http.Client
	// AllowAnyPushHost lets the gateway forward push notifications to
	// non-loopback webhooks.
	AllowAnyPushHost bool
	// PushKey is the secret the gateway's own webhook URLs carry (in their
	// query string, which the mock's journal never shows), so that only
	// the upstream agent, which was given those URLs, can push through the
	// gateway. Empty means a random key per Gateway.
	PushKey string
	// MaxTasks bounds the upstream task ids the gateway keeps aliases
	// for, and the client webhooks it keeps: beyond it the oldest are
	// forgotten (an alias of a forgotten task is passed upstream as it is,
	// which then does not know it). 0 means 100,000.
	MaxTasks int
}

// Gateway is the id-rewriting reverse proxy. It is an http.Handler.
type Gateway struct {
	cfg      Config
	upstream *url.URL
	client   *http.Client
	// pushClient forwards notifications; it follows no redirect, so a
	// webhook cannot send the notification and its token to another host.
	pushClient *http.Client

	mu       sync.Mutex
	toUp     map[string]string // client alias → upstream id
	aliases  map[string]string // channel + "\x00" + upstream id → alias
	ups      fifo              // upstream ids with aliases, oldest first
	hooks    map[int]string    // client webhook URLs, by index
	hookOf   map[string]int
	hookSeq  fifo // hook indexes (as strings), oldest first
	nextHook int
}

// New returns a gateway in front of cfg.Upstream.
func New(cfg Config) (*Gateway, error) {
	u, err := url.Parse(cfg.Upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("gateway: upstream %q is not an http(s) URL", cfg.Upstream)
	}
	c := cfg.Client
	if c == nil {
		c = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	}
	pc := *c
	pc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if cfg.PushKey == "" {
		cfg.PushKey = rand.Text()
	}
	if cfg.MaxTasks <= 0 {
		cfg.MaxTasks = 100_000
	}
	return &Gateway{cfg: cfg, upstream: u, client: c, pushClient: &pc, toUp: map[string]string{}, aliases: map[string]string{},
		hooks: map[int]string{}, hookOf: map[string]int{}}, nil
}

func (g *Gateway) hash(parts ...string) [32]byte {
	h := sha256.New()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], g.cfg.Seed)
	h.Write(b[:])
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

// Alias returns the client-facing id of upstream task id on channel.
func (g *Gateway) Alias(channel, upstreamID string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.aliasLocked(channel, upstreamID)
}

func (g *Gateway) aliasLocked(channel, up string) string {
	k := channel + "\x00" + up
	if a, ok := g.aliases[k]; ok {
		return a
	}
	s := g.hash("alias", channel, up)
	a := fmt.Sprintf("gw-%x-%x-%x", s[0:4], s[4:6], s[6:12])
	if !g.hasAliasLocked(up) {
		g.ups.push(up)
		for g.ups.len() > g.cfg.MaxTasks {
			g.forgetLocked(g.ups.pop())
		}
	}
	g.aliases[k] = a
	g.toUp[a] = up
	return a
}

var channels = []string{ChannelReply, ChannelStream, ChannelPush}

func (g *Gateway) hasAliasLocked(up string) bool {
	for _, ch := range channels {
		if _, ok := g.aliases[ch+"\x00"+up]; ok {
			return true
		}
	}
	return false
}

// forgetLocked drops the aliases of upstream id up.
func (g *Gateway) forgetLocked(up string) {
	for _, ch := range channels {
		k := ch + "\x00" + up
		if a, ok := g.aliases[k]; ok {
			delete(g.aliases, k)
			delete(g.toUp, a)
		}
	}
}

// Sizes reports how many aliases and client webhooks the gateway holds.
func (g *Gateway) Sizes() (aliases, webhooks int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.toUp), len(g.hooks)
}

// Upstream returns the upstream task id of a client-facing alias.
func (g *Gateway) Upstream(alias string) (string, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	u, ok := g.toUp[alias]
	return u, ok
}

// CorrelationID returns the correlation id of an upstream task id.
func (g *Gateway) CorrelationID(upstreamID string) string {
	s := g.hash("corr", upstreamID)
	return "corr-" + hex.EncodeToString(s[:10])
}

// ServeHTTP implements http.Handler.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if n, ok := strings.CutPrefix(r.URL.Path, pushPrefix); ok {
		g.servePush(w, r, n)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		http.Error(w, "gateway: read request", http.StatusBadRequest)
		return
	}
	if len(body) > maxBody {
		http.Error(w, "gateway: request body larger than 8 MiB", http.StatusRequestEntityTooLarge)
		return
	}
	self := "http://" + r.Host
	path := g.rewritePathIn(r.URL.Path)
	if path != r.URL.Path && strings.HasPrefix(path, "/_") {
		// A client-chosen task id (v0.1) such as "_a2amock" must not turn
		// an alias into a path the upstream reserves for itself.
		http.Error(w, "gateway: no such path", http.StatusNotFound)
		return
	}
	if len(body) > 0 {
		body = g.rewriteRequestBody(body, self, strings.Contains(path, "pushNotificationConfigs"))
	}
	target := *g.upstream
	target.Path = strings.TrimSuffix(g.upstream.Path, "/") + path
	target.RawQuery = r.URL.RawQuery
	req, err := http.NewRequestWithContext(r.Context(), r.Method, target.String(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, "gateway: bad request", http.StatusBadRequest)
		return
	}
	for k, vs := range r.Header {
		if k == "Content-Length" || k == "Connection" || k == "Accept-Encoding" {
			continue
		}
		req.Header[k] = vs
	}
	resp, err := g.client.Do(req)
	if err != nil {
		http.Error(w, "gateway: upstream unreachable", http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		if k == "Content-Length" || k == "Etag" {
			continue
		}
		w.Header()[k] = vs
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		g.proxyStream(w, resp, self)
		return
	}
	out, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	out, corr := g.rewriteResponseBody(out, ChannelReply, self)
	if corr != "" {
		w.Header().Set(CorrelationHeader, corr)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(out)
}

// proxyStream rewrites each SSE data line.
func (g *Gateway) proxyStream(w http.ResponseWriter, resp *http.Response, self string) {
	w.WriteHeader(resp.StatusCode)
	fl, _ := w.(http.Flusher)
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	for {
		line, err := br.ReadString('\n')
		if data, ok := strings.CutPrefix(line, "data:"); ok {
			nl := strings.HasSuffix(data, "\n")
			out, _ := g.rewriteResponseBody([]byte(strings.TrimSpace(data)), ChannelStream, self)
			line = "data: " + string(out)
			if nl {
				line += "\n"
			}
		}
		if line != "" {
			if _, werr := io.WriteString(w, line); werr != nil {
				return
			}
		}
		if line == "\n" || line == "\r\n" || err != nil {
			if fl != nil {
				fl.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}

// servePush rewrites one upstream notification and forwards it to the
// client's webhook. Only a caller that knows the push key (the upstream
// agent, given the gateway's webhook URL in a push config) may use it;
// anyone else could forge notifications to a client's webhook.
func (g *Gateway) servePush(w http.ResponseWriter, r *http.Request, n string) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "gateway: push notifications are POSTed", http.StatusMethodNotAllowed)
		return
	}
	got, want := sha256.Sum256([]byte(r.URL.Query().Get("key"))), sha256.Sum256([]byte(g.cfg.PushKey))
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		http.Error(w, "gateway: only the upstream agent may push through the gateway", http.StatusForbidden)
		return
	}
	i, err := strconv.Atoi(n)
	g.mu.Lock()
	var dest string
	if err == nil {
		dest = g.hooks[i]
	}
	g.mu.Unlock()
	if dest == "" {
		http.Error(w, "gateway: unknown webhook", http.StatusNotFound)
		return
	}
	if err := g.checkForward(dest); err != nil {
		http.Error(w, "gateway: "+err.Error(), http.StatusForbidden)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		http.Error(w, "gateway: read", http.StatusBadRequest)
		return
	}
	if len(body) > maxBody {
		http.Error(w, "gateway: notification larger than 8 MiB", http.StatusRequestEntityTooLarge)
		return
	}
	out, corr := g.rewriteResponseBody(body, ChannelPush, "")
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, dest, bytes.NewReader(out))
	if err != nil {
		http.Error(w, "gateway: bad webhook", http.StatusBadGateway)
		return
	}
	for _, k := range []string{"Content-Type", "Authorization", "A2A-Notification-Token", "X-A2A-Notification-Token"} {
		if v := r.Header.Get(k); v != "" {
			req.Header.Set(k, v)
		}
	}
	if corr != "" {
		req.Header.Set(CorrelationHeader, corr)
	}
	resp, err := g.pushClient.Do(req)
	if err != nil {
		http.Error(w, "gateway: webhook unreachable", http.StatusBadGateway)
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	w.WriteHeader(resp.StatusCode)
}

func (g *Gateway) checkForward(dest string) error {
	if g.cfg.AllowAnyPushHost {
		return nil
	}
	u, err := url.Parse(dest)
	if err != nil {
		return err
	}
	h := u.Hostname()
	if h == "localhost" {
		return nil
	}
	if ip, err := netip.ParseAddr(h); err == nil && ip.Unmap().IsLoopback() {
		return nil
	}
	return errors.New("webhook host is not loopback")
}

// fifo is a queue of strings that reuses its backing array.
type fifo struct {
	items []string
	head  int
}

func (f *fifo) push(s string) { f.items = append(f.items, s) }

func (f *fifo) len() int { return len(f.items) - f.head }

func (f *fifo) pop() string {
	s := f.items[f.head]
	f.items[f.head] = ""
	f.head++
	if f.head > len(f.items)/2 && f.head > 1024 {
		f.items = append(f.items[:0], f.items[f.head:]...)
		f.head = 0
	}
	return s
}
