package server

import (
	"net/http"
	"time"
)

// The card is served with an ETag, Cache-Control with max-age (v1.0 asks
// for both) and Last-Modified, and answers conditional requests on either.
// Behaviors can change the card at run time, so clients must revalidate:
// max-age=0 with no-cache. Last-Modified is when the card served at one URL
// (origin and path: the rendered interfaces depend on both) last changed,
// kept per URL; it moves by at least a second at every change, so a
// validator of second resolution never hides one.

// cardCacheControl is the Cache-Control of every card answer.
const cardCacheControl = "no-cache, max-age=0"

// maxCardVersions bounds the URLs whose card version an agent remembers;
// past it they are forgotten and start again from the agent's cardSince.
const maxCardVersions = 256

// cardVersion is the card last served at one URL and since when.
type cardVersion struct {
	etag     string
	modified time.Time
}

// cardModified returns when the card whose ETag is etag, served at key,
// last changed: the time the agent's card configuration was set when key
// is new, the previous time when the card is unchanged, and now (at least a
// second after the previous) when it changed.
func (a *agent) cardModified(key, etag string) time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cardSeen == nil {
		a.cardSeen = map[string]cardVersion{}
	}
	v, ok := a.cardSeen[key]
	switch {
	case !ok:
		if len(a.cardSeen) >= maxCardVersions {
			clear(a.cardSeen)
		}
		v = cardVersion{etag: etag, modified: a.cardSince}
	case v.etag != etag:
		now := a.srv.clock.Now().UTC().Truncate(time.Second)
		v = cardVersion{etag: etag, modified: later(now, v.modified.Add(time.Second))}
	default:
		return v.modified
	}
	a.cardSeen[key] = v
	return v.modified
}

// later returns the later of two times.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// cardNotModified applies the conditional headers of a card request (RFC
// 9110 §13.2.2: If-None-Match first, If-Modified-Since only without it).
func cardNotModified(r *http.Request, etag string, modified time.Time) bool {
	if inm := r.Header.Values("If-None-Match"); len(inm) > 0 {
		return etagMatches(inm, etag)
	}
	ims, err := http.ParseTime(r.Header.Get("If-Modified-Since"))
	return err == nil && !modified.After(ims)
}
