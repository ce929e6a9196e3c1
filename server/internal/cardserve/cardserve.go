// Package cardserve serves an agent's card as HTTP caches and signature
// checkers expect: an ETag and a Last-Modified that moves only when the
// card served at a URL changes (Versions), answers to conditional requests
// (Write), interfaces rendered for the URL the client reached (Render),
// and JWS signatures with the keys of the agent's JWKS (Signer).
//
// What card is served, and what behaviors do to it, is the server's: this
// package renders, signs and writes the bytes it is given.
package cardserve

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/server/internal/httpbind"
	"github.com/a2amock/a2amock/wire"
)

// The card is served with an ETag, Cache-Control with max-age (v1.0 asks
// for both) and Last-Modified, and answers conditional requests on either.
// Behaviors can change the card at run time, so clients must revalidate:
// max-age=0 with no-cache. Last-Modified is when the card served at one URL
// (origin and path: the rendered interfaces depend on both) last changed,
// kept per URL; it moves by at least a second at every change, so a
// validator of second resolution never hides one.

// CacheControl is the Cache-Control of every card answer.
const CacheControl = "no-cache, max-age=0"

// maxVersions bounds the URLs whose card version an agent remembers; past
// it they are forgotten and start again from the agent's Since.
const maxVersions = 256

// version is the card last served at one URL and since when.
type version struct {
	etag     string
	modified time.Time
}

// Versions remembers, per URL, the card last served there and since when.
// It is safe for concurrent use.
type Versions struct {
	mu sync.Mutex
	// since is when the card configuration (behaviors included) was last
	// set; seen the card last served per URL.
	since time.Time
	seen  map[string]version
}

// SetSince records that the card configuration changed at now.
func (v *Versions) SetSince(now time.Time) {
	v.mu.Lock()
	v.since = now.UTC().Truncate(time.Second)
	v.mu.Unlock()
}

// Modified returns when the card whose ETag is etag, served at key, last
// changed: the time the card configuration was set when key is new, the
// previous time when the card is unchanged, and now (at least a second
// after the previous) when it changed.
func (v *Versions) Modified(key, etag string, now time.Time) time.Time {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.seen == nil {
		v.seen = map[string]version{}
	}
	cur, ok := v.seen[key]
	switch {
	case !ok:
		if len(v.seen) >= maxVersions {
			clear(v.seen)
		}
		cur = version{etag: etag, modified: v.since}
	case cur.etag != etag:
		now := now.UTC().Truncate(time.Second)
		cur = version{etag: etag, modified: later(now, cur.modified.Add(time.Second))}
	default:
		return cur.modified
	}
	v.seen[key] = cur
	return cur.modified
}

// later returns the later of two times.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Write answers a card request with the rendered card b: its ETag and
// Last-Modified (from versions, keyed by the URL the client reached),
// 304 to a matching conditional request, no body to HEAD.
func Write(w http.ResponseWriter, r *http.Request, b []byte, versions *Versions, origin string, now time.Time) {
	sum := sha256.Sum256(b)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	modified := versions.Modified(origin+r.URL.Path, etag, now)
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Last-Modified", modified.UTC().Format(http.TimeFormat))
	// Behaviors can change the card at run time, so clients revalidate.
	h.Set("Cache-Control", CacheControl)
	if notModified(r, etag, modified) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "application/json")
	// A whole answer says its length: the transport behaviors scoped to the
	// card (content-type, malformed-json, unknown-fields) tell a unary
	// answer from a stream by it, and rewrite only the former.
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(b)
	}
}

// notModified applies the conditional headers of a card request (RFC
// 9110 §13.2.2: If-None-Match first, If-Modified-Since only without it).
func notModified(r *http.Request, etag string, modified time.Time) bool {
	if inm := r.Header.Values("If-None-Match"); len(inm) > 0 {
		return etagMatches(inm, etag)
	}
	ims, err := http.ParseTime(r.Header.Get("If-Modified-Since"))
	return err == nil && !modified.After(ims)
}

// etagMatches applies If-None-Match (RFC 9110 §13.1.2): a list of entity
// tags compared weakly, or "*".
func etagMatches(headers []string, etag string) bool {
	for _, h := range headers {
		for _, tag := range strings.Split(h, ",") {
			tag = strings.TrimSpace(tag)
			if tag == "*" || strings.TrimPrefix(tag, "W/") == etag {
				return true
			}
		}
	}
	return false
}

// Interfaces says which interfaces a rendered card declares.
type Interfaces struct {
	// Declares reports whether the agent serves binding b.
	Declares func(b wire.Binding) bool
	// RESTPath is the HTTP+JSON base below the agent's base.
	RESTPath string
	// GRPC adds the gRPC interface (host:port) of a server that serves
	// gRPC. Every agent shares it: below the root the interface declares
	// Tenant, the agent's name, which clients put in every request (v1.0
	// AgentInterface.tenant) and the binding routes on.
	GRPC   bool
	Tenant string
	// Reaches reports whether a gRPC call of dialect d, which carries no
	// tenant (v0.3), reaches this agent: only then does a card of d
	// declare the GRPC interface. Nil: always.
	Reaches func(d wire.Dialect) bool
}

// Render renders c (its dialect defaulting to dialect) with the interfaces
// of this server as seen from origin and the agent's base path.
func Render(c *cards.Card, dialect wire.Dialect, origin, base string, in Interfaces) ([]byte, error) {
	cc := *c
	if cc.Dialect == "" {
		cc.Dialect = dialect
	}
	desc := wire.Describe(cc.Dialect)
	bindings := desc.Bindings
	if len(bindings) == 0 {
		// An unknown dialect (a behavior's card edit) still names the
		// endpoint; rendering reports the dialect.
		bindings = []wire.Binding{wire.BindingJSONRPC}
	}
	cc.Interfaces = make([]cards.Interface, 0, len(bindings)+1)
	for _, b := range bindings {
		if !in.Declares(b) {
			continue
		}
		url := origin + base + "/"
		if b == wire.BindingREST {
			url = origin + base + in.RESTPath
			if desc.RESTPath != "" {
				url = origin + base + desc.RESTPath
			}
		}
		cc.Interfaces = append(cc.Interfaces, cards.Interface{URL: url, Binding: b, Version: cc.Dialect})
	}
	if desc.GRPC && in.GRPC && (desc.Tenant || in.Reaches == nil || in.Reaches(cc.Dialect)) {
		// A gRPC interface is host:port, one for every agent: the root's
		// requests carry no tenant, the others' their agent's name. A
		// dialect without tenants (v0.3) declares it on the one agent its
		// calls reach, and renders no tenant.
		gi := cards.Interface{URL: cards.GRPCTarget(origin), Binding: wire.BindingGRPC, Version: cc.Dialect}
		if base != "" {
			gi.Tenant = in.Tenant
		}
		cc.Interfaces = append(cc.Interfaces, gi)
	}
	return cards.Render(&cc)
}

// Agent is the card side of one agent: its declared card, the interfaces
// its rendering names, its signer and the versions it served.
type Agent struct {
	Card       *cards.Card
	Interfaces Interfaces
	Signer     Signer
	Versions   Versions
}

// Answer serves the card to a fetch after the behaviors of exchange x
// changed it (card edits, then its JSON, then the signed card; signed with
// x.Signing when the server or a behavior asks), with its validators.
func (a *Agent) Answer(w http.ResponseWriter, r *http.Request, x *behaviors.Exchange, base string, now time.Time) error {
	card := a.Card
	if hooks := x.Hooks().Card; len(hooks) > 0 {
		c := *card
		c.Skills = slices.Clone(c.Skills)
		for _, f := range hooks {
			f(&c)
		}
		card = &c
	}
	origin := httpbind.Origin(r)
	b, err := Render(card, a.Card.Dialect, origin, base, a.Interfaces)
	if err != nil {
		return httpbind.WriteStatusError(w, wire.Errorf(wire.CodeInternal, "render card: %v", err))
	}
	for _, f := range x.Hooks().CardJSON {
		b = f(b)
	}
	if b, err = a.Signer.Sign(b, x, x.Signing); err != nil {
		return httpbind.WriteStatusError(w, wire.Errorf(wire.CodeInternal, "sign card: %v", err))
	}
	Write(w, r, b, &a.Versions, origin, now)
	return nil
}

// Extended renders the extended card ext for origin and base, signed when
// the exchange carries signing material.
func (a *Agent) Extended(ext *cards.Card, x *behaviors.Exchange, origin, base string) ([]byte, *wire.Error) {
	b, err := Render(ext, a.Card.Dialect, origin, base, a.Interfaces)
	if err != nil {
		return nil, wire.Errorf(wire.CodeInternal, "render extended card: %v", err)
	}
	if x.Signing != nil {
		if b, err = a.Signer.Sign(b, x, x.Signing); err != nil {
			return nil, wire.Errorf(wire.CodeInternal, "sign extended card: %v", err)
		}
	}
	return b, nil
}
