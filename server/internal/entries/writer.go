package entries

import (
	"io"
	"net/http"
	"sync/atomic"

	"github.com/a2amock/a2amock/journal"
	"github.com/a2amock/a2amock/server/internal/httpbind"
	"github.com/a2amock/a2amock/server/internal/metrics"
	"github.com/a2amock/a2amock/server/internal/wirecap"
	"github.com/a2amock/a2amock/timeline"
	"github.com/a2amock/a2amock/wire"
)

// Writer writes the request path's entries into the server's journal: it
// stamps them on the server's clock, numbers the requests, and counts
// each entry in the metrics as it is written. Its methods are safe for
// concurrent use.
type Writer struct {
	Journal *journal.Journal
	Metrics *metrics.Store
	Clock   timeline.Clock
	// MaxBodyBytes bounds what Refused reads of a refused request's body.
	MaxBodyBytes int64
	reqSeq       atomic.Int64
}

// Record journals e, stamped now unless it has a time of its own, and
// returns its sequence number.
func (w *Writer) Record(e journal.Entry) int64 {
	if e.Time.IsZero() {
		e.Time = w.Clock.Now()
	}
	e.Time = e.Time.UTC()
	seq := w.Journal.Add(e)
	e.Seq = seq
	w.Metrics.Observe(&e)
	return seq
}

// NewRequestNumber returns the next request number (Entry.Request).
func (w *Writer) NewRequestNumber() int64 { return w.reqSeq.Add(1) }

// ResetRequests numbers requests from 1 again, as after a reset a run
// journals exactly what the same run on a fresh server does.
func (w *Writer) ResetRequests() { w.reqSeq.Store(0) }

// Request journals a decoded request of agent, with the path it came on
// and the A2A-Version it carried; it returns the request's number and the
// entry's sequence number.
func (w *Writer) Request(agent string, req *wire.Request, path, version string) (reqNo, seq int64) {
	n := w.NewRequestNumber()
	return n, w.Record(Request(agent, req, n, path, version))
}

// Response journals the answer to request reqNo.
func (w *Writer) Response(agent string, req *wire.Request, reqNo int64, res *wire.Result, err *wire.Error) {
	w.Record(Response(agent, req, reqNo, res, err))
}

// Refused journals a request of agent refused before it was served (what
// is known of it in req) and its answer e, and tags rw's capture with its
// number. What is left of a body of known length (up to MaxBodyBytes) is
// read first, so that the raw view shows what the client sent even when it
// was refused unread (a media type not served, no route); a body of no
// declared length (chunked, an HTTP/2 stream) is left alone, as it may not
// end.
func (w *Writer) Refused(rw http.ResponseWriter, r *http.Request, agent string, req *wire.Request, e *wire.Error) {
	if r.Body != nil && r.ContentLength > 0 {
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, min(r.ContentLength, w.MaxBodyBytes)))
	}
	reqNo, _ := w.Request(agent, req, r.URL.Path, httpbind.RequestedVersion(r))
	wirecap.Tag(rw, reqNo, 0)
	w.Response(agent, req, reqNo, nil, e)
}
