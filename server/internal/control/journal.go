package control

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/a2amock/a2amock/journal"
)

// TotalCountHeader is the response header of GET /_a2amock/journal that
// holds how many entries matched the filter, before ?limit= cut the list.
const TotalCountHeader = "X-Total-Count"

// serveJournal is GET /_a2amock/journal?since=&agent=&task=&kind=&limit=.
// With agent=, entries from before the agent was created (a removed agent of
// the same name) or last reset are left out.
func (api *API) serveJournal(c echo.Context) error {
	since, err := intParam(c, "since")
	if err != nil {
		return err
	}
	limit, err := intParam(c, "limit")
	if err != nil {
		return err
	}
	if limit < 0 {
		return fieldError(c, http.StatusBadRequest, "limit", "limit must be 0 (no limit) or more")
	}
	var kinds []journal.EntryKind
	if v := c.QueryParam("kind"); v != "" {
		for _, k := range strings.Split(v, ",") {
			k := journal.EntryKind(strings.TrimSpace(k))
			if !slices.Contains(journal.Kinds, k) {
				names := make([]string, len(journal.Kinds))
				for i, k := range journal.Kinds {
					names[i] = string(k)
				}
				return fieldError(c, http.StatusBadRequest, "kind", "kind "+strconv.Quote(string(k))+" is not one of "+strings.Join(names, ", "))
			}
			kinds = append(kinds, k)
		}
	}
	name := c.QueryParam("agent")
	if a, ok := api.host.Lookup(name); ok && name != "" {
		since = max(since, a.JournalFrom())
	}
	entries, total := api.host.Journal().Page(since, journal.Match(name, c.QueryParam("task"), kinds), int(limit))
	c.Response().Header().Set(TotalCountHeader, strconv.Itoa(total))
	return c.JSON(http.StatusOK, map[string]any{"entries": entries})
}

// serveReset is POST /_a2amock/reset: every agent, or with ?agent= one
// agent (its tasks, its behaviors' state and its journal view), so that a
// test on a shared server resets only its own agents.
func (api *API) serveReset(c echo.Context) error {
	name := c.QueryParam("agent")
	if name == "" {
		api.host.Reset()
		return c.NoContent(http.StatusNoContent)
	}
	a, ok := api.host.Lookup(name)
	if !ok {
		return api.unknownAgent(c, name)
	}
	a.Reset()
	a.SetJournalFrom(api.host.Journal().LastSeq())
	return c.NoContent(http.StatusNoContent)
}

// serveWire is GET /_a2amock/journal/wire: the raw bytes of one exchange.
func (api *API) serveWire(c echo.Context) error {
	req, err := intParam(c, "request")
	if err != nil {
		return err
	}
	seq, err := intParam(c, "seq")
	if err != nil {
		return err
	}
	if (req > 0) == (seq > 0) {
		return fieldError(c, http.StatusBadRequest, "request", "give one of request (an A2A request's number) or seq (a card or JWKS fetch's journal entry), positive")
	}
	x, ok := api.host.Wire(req, seq)
	if !ok {
		return fieldError(c, http.StatusNotFound, "request", "no bytes kept for that exchange (only the last 512 are, and none from before a reset)")
	}
	return c.JSON(http.StatusOK, x)
}

// The journal's event stream (GET /_a2amock/journal/stream) sends the
// retained entries after ?since= (or the Last-Event-ID header) and then the
// new ones as they are journaled: each SSE event "entries" carries a JSON
// array of at most streamBatch entries and the seq of its last one as id;
// "reset" says the journal was cleared (the reader starts over from 0).
// Entries arriving close together are sent together (streamCoalesce), so a
// server journaling thousands of entries a second sends a few events a
// second, each as large as the batch allows.
const (
	streamBatch     = 1000
	streamCoalesce  = 50 * time.Millisecond
	streamKeepalive = 15 * time.Second
	streamWriteWait = 10 * time.Second
)

func (api *API) serveJournalStream(c echo.Context) error {
	since, err := intParam(c, "since")
	if err != nil {
		return err
	}
	if v := c.Request().Header.Get("Last-Event-ID"); v != "" && c.QueryParam("since") == "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fieldError(c, http.StatusBadRequest, "Last-Event-ID", "Last-Event-ID must be an integer (the seq of the last entry received)")
		}
		since = n
	}
	since = max(since, 0)
	w := c.Response()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	send := func(b []byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(streamWriteWait))
		if _, err := w.Write(b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !send([]byte(": a2amock journal\n\n")) {
		return nil
	}
	ctx := c.Request().Context()
	keepalive := time.NewTicker(streamKeepalive)
	defer keepalive.Stop()
	all := func(*journal.Entry) bool { return true }
	j := api.host.Journal()
	_, epoch, _ := j.Watch()
	for {
		changed, ep, last := j.Watch()
		if ep != epoch || last < since {
			epoch, since = ep, 0
			if !send([]byte("event: reset\ndata: {}\n\n")) {
				return nil
			}
		}
		if entries, _ := j.Page(since, all, streamBatch); len(entries) > 0 {
			b, err := json.Marshal(entries)
			if err != nil {
				return nil
			}
			since = entries[len(entries)-1].Seq
			msg := make([]byte, 0, len(b)+64)
			msg = append(msg, "event: entries\nid: "...)
			msg = strconv.AppendInt(msg, since, 10)
			msg = append(msg, "\ndata: "...)
			msg = append(append(msg, b...), "\n\n"...)
			if !send(msg) {
				return nil
			}
			if len(entries) == streamBatch {
				continue
			}
		}
		select {
		case <-changed:
			// Let the burst this change belongs to finish.
			t := time.NewTimer(streamCoalesce)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil
			case <-api.host.Done():
				t.Stop()
				return nil
			}
		case <-keepalive.C:
			if !send([]byte(": keepalive\n\n")) {
				return nil
			}
		case <-ctx.Done():
			return nil
		case <-api.host.Done():
			return nil
		}
	}
}
