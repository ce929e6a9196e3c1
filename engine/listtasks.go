package engine

import (
	"cmp"
	"encoding/base64"
	"slices"
	"strconv"
	"time"

	"github.com/a2amock/a2amock/wire"
)

// maxPageTokens bounds the page tokens an agent remembers; a token older
// than the last maxPageTokens issued is refused as not issued.
const maxPageTokens = 1024

// pageTokens maps the page tokens an agent issued to the places in the
// list they continue from. A token is the agent's count of issued tokens,
// not the place itself: the place holds a status time, which would make
// tokens differ between two runs of the same seed. One place has one
// token, so a page asked for twice answers the same nextPageToken (a
// client's loop over a page that never advances shows as a repeated
// token). Guarded by Agent.mu.
type pageTokens struct {
	issued  uint64
	places  map[string]listCursor
	byPlace map[listCursor]string
	order   []string // oldest first, at most maxPageTokens
}

// issue returns the token for c, a new one unless c already has one.
func (p *pageTokens) issue(c listCursor) string {
	if tok, ok := p.byPlace[c]; ok {
		return tok
	}
	p.issued++
	tok := base64.RawURLEncoding.EncodeToString([]byte("page." + strconv.FormatUint(p.issued, 10)))
	if p.places == nil {
		p.places = map[string]listCursor{}
		p.byPlace = map[listCursor]string{}
	}
	if len(p.order) == maxPageTokens {
		delete(p.byPlace, p.places[p.order[0]])
		delete(p.places, p.order[0])
		p.order = p.order[1:]
	}
	p.places[tok] = c
	p.byPlace[c] = tok
	p.order = append(p.order, tok)
	return tok
}

// lookup returns the place a token continues from.
func (p *pageTokens) lookup(tok string) (listCursor, bool) {
	c, ok := p.places[tok]
	return c, ok
}

// q.PageSize is what the request asked for, 0 when it did not say: the
// codecs refuse an explicit 0, as the proto's optional field allows
// only 1 to 100.
// List answers ListTasks: newest status first, paged by an opaque token.
func (a *Agent) List(q wire.ListTasksQuery) (*wire.TaskPage, *wire.Error) {
	size := q.PageSize
	if size == 0 {
		size = 50
	}
	if size < 1 || size > 100 {
		return nil, wire.ErrInvalidParams("pageSize", "must be between 1 and 100")
	}
	type ref struct {
		e   *taskEntry
		pos listCursor
	}
	a.mu.Lock()
	var after *listCursor
	if q.PageToken != "" {
		c, ok := a.pages.lookup(q.PageToken)
		if !ok {
			a.mu.Unlock()
			return nil, wire.ErrInvalidParams("pageToken", "not a token this agent issued (or one of more than 1024 issued since)")
		}
		after = &c
	}
	var matched []ref
	for _, e := range a.store.Order {
		t := e.task
		if q.ContextID != "" && t.ContextID != q.ContextID {
			continue
		}
		if q.State != "" && t.Status.State != q.State {
			continue
		}
		// The proto: a status time greater than or equal to the filter,
		// compared as the wire shows it (to the millisecond), so a client
		// passing back a task's timestamp gets that task.
		if !q.StatusTimestampAfter.IsZero() && t.Status.Timestamp.Truncate(time.Millisecond).Before(q.StatusTimestampAfter) {
			continue
		}
		matched = append(matched, ref{e, listCursor{t.Status.Timestamp.UnixNano(), e.seq}})
	}
	a.mu.Unlock()
	// Newest status first; the newer task breaks ties.
	slices.SortFunc(matched, func(x, y ref) int { return y.pos.compare(x.pos) })
	// A page starts after the last task of the previous one, wherever it
	// now stands, so tasks created between two fetches neither repeat nor
	// push others off a page.
	start := 0
	if after != nil {
		start, _ = slices.BinarySearchFunc(matched, *after, func(r ref, c listCursor) int { return c.compare(r.pos) })
		if start < len(matched) && matched[start].pos == *after {
			start++
		}
	}
	end := min(start+size, len(matched))
	page := &wire.TaskPage{PageSize: size, TotalSize: len(matched)}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, r := range matched[start:end] {
		t := TrimHistory(r.e.task.Clone(), q.HistoryLength)
		if !q.IncludeArtifacts {
			t.Artifacts = nil
		}
		page.Tasks = append(page.Tasks, t)
	}
	if end < len(matched) {
		page.NextPageToken = a.pages.issue(matched[end-1].pos)
	}
	return page, nil
}

// listCursor is a task's place in ListTasks order: its status time, then
// its creation number.
type listCursor struct {
	unixNano int64
	seq      uint64
}

// compare orders cursors oldest first.
func (c listCursor) compare(o listCursor) int {
	if c.unixNano != o.unixNano {
		return cmp.Compare(c.unixNano, o.unixNano)
	}
	return cmp.Compare(c.seq, o.seq)
}
