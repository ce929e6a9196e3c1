package server

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/a2amock/a2amock/ui"
)

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

func (s *Server) serveJournalStream(c echo.Context) error {
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
	all := func(*Entry) bool { return true }
	_, epoch, _ := s.journal.Watch()
	for {
		changed, ep, last := s.journal.Watch()
		if ep != epoch || last < since {
			epoch, since = ep, 0
			if !send([]byte("event: reset\ndata: {}\n\n")) {
				return nil
			}
		}
		if entries, _ := s.journal.Page(since, all, streamBatch); len(entries) > 0 {
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
			case <-s.ctx.Done():
				t.Stop()
				return nil
			}
		case <-keepalive.C:
			if !send([]byte(": keepalive\n\n")) {
				return nil
			}
		case <-ctx.Done():
			return nil
		case <-s.ctx.Done():
			return nil
		}
	}
}

// serveUI is GET /_a2amock/ui: the live timeline page. It holds no data;
// everything it shows it reads from the journal's event stream.
func (s *Server) serveUI(c echo.Context) error {
	h := c.Response().Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; frame-ancestors 'none'")
	c.Response().WriteHeader(http.StatusOK)
	return ui.WriteLive(c.Response())
}

// guardUIPage applies the control API's rules to the page, except that
// with a control token the page itself (static, no data) is served without
// it: a browser cannot send a bearer token when it opens a page, so the
// page takes it from its address (#token=…, a fragment never sent to the
// server) and sends it with its own request for the stream, which the
// token guards.
func (s *Server) guardUIPage(next echo.HandlerFunc) echo.HandlerFunc {
	guarded := s.guardControl(next)
	return func(c echo.Context) error {
		if s.cfg.ControlToken != "" && s.cfg.ControlFrontSecret == "" {
			return next(c)
		}
		return guarded(c)
	}
}
