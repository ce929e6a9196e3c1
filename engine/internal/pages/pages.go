// Package pages holds the ListTasks page tokens an agent issued and the
// places in the list they continue from (a task's status time, then its
// creation number), so that the same seed gives the same tokens and a page
// asked for twice answers the same next token; and the pages of a task's
// push configs (ListTaskPushNotificationConfigs).
package pages

import (
	"cmp"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"

	"github.com/a2amock/a2amock/wire"
)

// maxPageTokens bounds the page tokens an agent remembers; a token older
// than the last maxPageTokens issued is refused as not issued.
const maxPageTokens = 1024

// Tokens maps the page tokens an agent issued to the places in the
// list they continue from. A token is the agent's count of issued tokens,
// not the place itself: the place holds a status time, which would make
// tokens differ between two runs of the same seed. One place has one
// token, so a page asked for twice answers the same nextPageToken (a
// client's loop over a page that never advances shows as a repeated
// token). The engine's Agent.mu guards it.
type Tokens struct {
	issued  uint64
	places  map[string]Cursor
	byPlace map[Cursor]string
	order   []string // oldest first, at most maxPageTokens
}

// Issue returns the token for c, a new one unless c already has one.
func (p *Tokens) Issue(c Cursor) string {
	if tok, ok := p.byPlace[c]; ok {
		return tok
	}
	p.issued++
	tok := base64.RawURLEncoding.EncodeToString([]byte("page." + strconv.FormatUint(p.issued, 10)))
	if p.places == nil {
		p.places = map[string]Cursor{}
		p.byPlace = map[Cursor]string{}
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

// Lookup returns the place a token continues from.
func (p *Tokens) Lookup(tok string) (Cursor, bool) {
	c, ok := p.places[tok]
	return c, ok
}

// Cursor is a task's place in ListTasks order: its status time, then
// its creation number.
type Cursor struct {
	UnixNano int64
	Seq      uint64
}

// Compare orders cursors oldest first.
func (c Cursor) Compare(o Cursor) int {
	if c.UnixNano != o.UnixNano {
		return cmp.Compare(c.UnixNano, o.UnixNano)
	}
	return cmp.Compare(c.Seq, o.Seq)
}

// Slice sorts matched newest first (by the cursor pos gives each; the
// newer task breaks ties) and returns the bounds of the page of size
// items that follows after, the first page when after is nil. A page
// starts after the last task of the previous one, wherever it now stands,
// so tasks created between two fetches neither repeat nor push others off
// a page.
func Slice[T any](matched []T, pos func(T) Cursor, after *Cursor, size int) (start, end int) {
	slices.SortFunc(matched, func(x, y T) int { return pos(y).Compare(pos(x)) })
	if after != nil {
		start, _ = slices.BinarySearchFunc(matched, *after, func(r T, c Cursor) int { return c.Compare(pos(r)) })
		if start < len(matched) && pos(matched[start]) == *after {
			start++
		}
	}
	return start, min(start+size, len(matched))
}

// PushConfigs returns the page of a task's push configs (pcs, in the
// order the task holds them, which is the order they were first set) that
// follows q.PageToken ("" for the first page): at most q.PageSize of them,
// all when it is 0, as the proto leaves an unset page_size. The token of
// the next page ("" on the last) names the task and the config the page
// ended with, so the same seed gives the same tokens and a config set
// meanwhile is listed, not skipped. A token that is not one for this task,
// or whose config was deleted since, is refused as InvalidParams.
func PushConfigs(taskID string, pcs []wire.PushConfig, q wire.ListTasksQuery) ([]wire.PushConfig, string, *wire.Error) {
	start := 0
	if q.PageToken != "" {
		raw, err := base64.RawURLEncoding.DecodeString(q.PageToken)
		task, id, found := strings.Cut(string(raw), "\x00")
		i := slices.IndexFunc(pcs, func(pc wire.PushConfig) bool { return pc.ID == id })
		if err != nil || !found || task != "push."+taskID || i < 0 {
			return nil, "", wire.ErrInvalidParams("pageToken", "not a token this agent issued for the push configs of task "+taskID+" (or the config its page ended with was deleted since)")
		}
		start = i + 1
	}
	end := len(pcs)
	if q.PageSize > 0 {
		end = min(start+q.PageSize, len(pcs))
	}
	next := ""
	if end < len(pcs) {
		next = base64.RawURLEncoding.EncodeToString([]byte("push." + taskID + "\x00" + pcs[end-1].ID))
	}
	return pcs[start:end], next, nil
}
