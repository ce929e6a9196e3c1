package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/cardsig"
	"github.com/a2amock/a2amock/testkit"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// agentCard is an agent as the client knows it from its card: the card,
// its ETag and a client of the interface it picked. As a reconcile.Agent it
// revalidates the card (If-None-Match) before each new message, since
// cards are served with Cache-Control no-cache: a card that changed is
// verified and read again, and the interface picked anew. Polls and
// cancels of a task go on with what the task began with.
type agentCard struct {
	hc  *http.Client
	url string // the card URL that answered (current or legacy path)

	mu     sync.Mutex
	etag   string
	card   *cards.Card
	client *testkit.Client
	// fresh is set when the card was just fetched: the next message needs
	// no revalidation.
	fresh bool
}

// errBadSignature is a signed card whose signatures do not verify.
var errBadSignature = errors.New("the card's signature does not verify")

// discover reads the agent's card, falling back to the legacy path when
// the current one is not found, verifies its signature when it has one and
// picks the interface to use.
func discover(ctx context.Context, agentURL string, hc *http.Client) (*agentCard, error) {
	a := &agentCard{hc: hc}
	var err error
	for _, p := range []string{"/.well-known/agent-card.json", "/.well-known/agent.json"} {
		a.url = agentURL + p
		var status int
		status, err = a.fetch(ctx)
		if status != http.StatusNotFound {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	return a, nil
}

// fetch (re)reads the card, conditionally once it has an ETag; it returns
// the HTTP status.
func (a *agentCard) fetch(ctx context.Context) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	a.mu.Lock()
	if a.etag != "" {
		req.Header.Set("If-None-Match", a.etag)
	}
	a.mu.Unlock()
	resp, err := a.hc.Do(req)
	if err != nil {
		return 0, fmt.Errorf("fetch card %s: %w", a.url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return resp.StatusCode, fmt.Errorf("read card %s: %w", a.url, err)
	}
	switch resp.StatusCode {
	case http.StatusNotModified:
		return resp.StatusCode, nil
	case http.StatusOK:
	default:
		return resp.StatusCode, fmt.Errorf("fetch card %s: HTTP %d", a.url, resp.StatusCode)
	}
	if err := verifySignature(ctx, a.hc, a.url, raw); err != nil {
		return resp.StatusCode, err
	}
	card, err := cards.Parse(raw)
	if err != nil {
		return resp.StatusCode, fmt.Errorf("card %s: %w", a.url, err)
	}
	client, err := testkit.ClientForCard(card, testkit.WithHTTPClient(a.hc))
	if err != nil {
		return resp.StatusCode, err
	}
	a.mu.Lock()
	a.etag, a.card, a.client, a.fresh = resp.Header.Get("ETag"), card, client, true
	a.mu.Unlock()
	return resp.StatusCode, nil
}

// current returns the client of the card as last read.
func (a *agentCard) current() *testkit.Client {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.client
}

// revalidate asks whether the card changed before a new message. A card
// that cannot be fetched now is used as last read (a fault in front of
// the card endpoint is no reason to give up); one that changed and does
// not verify is refused.
func (a *agentCard) revalidate(ctx context.Context) error {
	a.mu.Lock()
	fresh := a.fresh
	a.fresh = false
	a.mu.Unlock()
	if fresh {
		return nil
	}
	if _, err := a.fetch(ctx); errors.Is(err, errBadSignature) {
		return err
	}
	return nil
}

// Send implements reconcile.Agent.
func (a *agentCard) Send(ctx context.Context, msg *wire.Message, opts reconcile.SendOptions) (*wire.Task, error) {
	if err := a.revalidate(ctx); err != nil {
		return nil, err
	}
	return a.current().Send(ctx, msg, opts)
}

// Stream implements reconcile.Agent.
func (a *agentCard) Stream(ctx context.Context, msg *wire.Message) (iter.Seq2[wire.Event, error], error) {
	if err := a.revalidate(ctx); err != nil {
		return nil, err
	}
	return a.current().Stream(ctx, msg)
}

// GetTask implements reconcile.Agent.
func (a *agentCard) GetTask(ctx context.Context, id string) (*wire.Task, error) {
	return a.current().GetTask(ctx, id)
}

// CancelTask implements reconcile.Agent.
func (a *agentCard) CancelTask(ctx context.Context, id string) (*wire.Task, error) {
	return a.current().CancelTask(ctx, id)
}

// verifySignature verifies a signed card (v1.0 §8.4) with the keys its
// signatures name: the JWKS at each jku on the card's own origin (keys
// elsewhere are not fetched), without the keys marked expired. An
// unsigned card passes: nothing asks this client to require signatures.
func verifySignature(ctx context.Context, hc *http.Client, cardURL string, raw []byte) error {
	var c struct {
		Signatures []struct {
			Protected string `json:"protected"`
		} `json:"signatures"`
	}
	if json.Unmarshal(raw, &c) != nil || len(c.Signatures) == 0 {
		return nil
	}
	origin, err := url.Parse(cardURL)
	if err != nil {
		return err
	}
	var keys jose.JSONWebKeySet
	fetched := map[string]bool{}
	for _, s := range c.Signatures {
		var h struct {
			JKU string `json:"jku"`
		}
		b, err := base64.RawURLEncoding.DecodeString(s.Protected)
		if err != nil || json.Unmarshal(b, &h) != nil || h.JKU == "" || fetched[h.JKU] {
			continue
		}
		fetched[h.JKU] = true
		u, err := url.Parse(h.JKU)
		if err != nil || u.Scheme != origin.Scheme || u.Host != origin.Host {
			continue
		}
		ks, err := fetchKeys(ctx, hc, h.JKU)
		if err != nil {
			return fmt.Errorf("%w: %v", errBadSignature, err)
		}
		keys.Keys = append(keys.Keys, ks...)
	}
	if err := cardsig.Verify(raw, keys); err != nil {
		return fmt.Errorf("%w: %v", errBadSignature, err)
	}
	return nil
}

// fetchKeys reads a JWKS, leaving out keys whose "exp" has passed.
func fetchKeys(ctx context.Context, hc *http.Client, jku string) ([]jose.JSONWebKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, jku, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch keys %s: %w", jku, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch keys %s: HTTP %d", jku, resp.StatusCode)
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&set); err != nil {
		return nil, fmt.Errorf("keys %s: %w", jku, err)
	}
	var out []jose.JSONWebKey
	for _, raw := range set.Keys {
		var exp struct {
			Exp *int64 `json:"exp"`
		}
		if json.Unmarshal(raw, &exp) == nil && exp.Exp != nil && time.Unix(*exp.Exp, 0).Before(time.Now()) {
			continue
		}
		var k jose.JSONWebKey
		if err := k.UnmarshalJSON(raw); err == nil {
			out = append(out, k)
		}
	}
	return out, nil
}

// needsBearer reports whether the card's security requirements name a
// scheme that takes a bearer token.
func needsBearer(card *cards.Card) bool {
	for _, req := range card.Security {
		for name := range req {
			sc := card.SecuritySchemes[name]
			if sc.Type == "oauth2" || sc.Type == "openIdConnect" || sc.Type == "http" && strings.EqualFold(sc.Scheme, "bearer") {
				return true
			}
		}
	}
	return false
}
