package wirerec

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/a2amock/a2amock/conform/internal/judge"
)

// Log keeps a mock's wire records, numbered (Seq) in the order their
// exchanges ended, and ends them where the client under test exited
// (Exit), as the run's journal ends: an exchange still open then is
// recorded as it stood at that moment (Cut), and one begun later (a stray
// child's, or a request the client queued as it died) is left out. What
// the mock wrote after the exit, while it was being shut down, is no part
// of the records, so they do not depend on how fast the shutdown was.
type Log struct {
	max int

	mu      sync.Mutex
	seq     int
	started uint64
	records []judge.WireRecord
	live    map[*Exchange]struct{}
	exited  bool
}

// NewLog returns a Log that keeps at most max records (a client that
// floods the mock is judged on the first ones; Seq keeps counting).
func NewLog(max int) *Log { return &Log{max: max, live: map[*Exchange]struct{}{}} }

// Exchange is one exchange under way, between Log.Start and Log.Finish.
type Exchange struct {
	rec judge.WireRecord
	w   *Writer
	// n orders the exchanges by their start.
	n uint64
	// left is set on an exchange begun after the exit, which is not
	// recorded; cut on one open at the exit, recorded then; done on one
	// recorded when the handler closed the connection it took over.
	left, cut, done bool
}

// Start notes the exchange rec (from Begin), answered through w, as under
// way.
func (l *Log) Start(rec judge.WireRecord, w *Writer) *Exchange {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.started++
	x := &Exchange{rec: rec, w: w, n: l.started, left: l.exited}
	if !x.left {
		l.live[x] = struct{}{}
	}
	w.mu.Lock()
	w.closing = func() { l.Finish(x, false) }
	w.mu.Unlock()
	return x
}

// Finish records x as Finish completes it, at its end; aborted is as for
// Finish. Its end is when the handler returns, or, when the handler took
// the connection over, when it closed it (Writer.Hijack), which the
// client sees first. An exchange begun after the exit, cut at it, or
// already recorded is not recorded again.
func (l *Log) Finish(x *Exchange, aborted bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ends(x) {
		Finish(&x.rec, x.w, aborted)
		l.keep(x.rec)
	}
}

// Left records x, whose client closed the connection (or reset the
// call) before the handler returned, as an exchange the client left
// unfinished: as Cut records one still under way at the exit, at its end,
// open, with the body written by then. The client's exit closes the
// connections it held, and the mock may notice that (and its handler
// return) before the runner learns of the exit (Exit) or after: the
// exchange is recorded open either way, and not, in most runs, as an
// answer that reached the client whole.
func (l *Log) Left(x *Exchange) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ends(x) {
		Cut(&x.rec, x.w, time.Now())
		l.keep(x.rec)
	}
}

// ends marks x recorded and no longer live, with l.mu held, and reports
// whether it was to be recorded: not when it began after the exit, was cut
// at it, or is recorded already.
func (l *Log) ends(x *Exchange) bool {
	if x.left || x.cut || x.done {
		return false
	}
	x.done = true
	delete(l.live, x)
	return true
}

// keep numbers rec and keeps it, within the bound.
func (l *Log) keep(rec judge.WireRecord) {
	l.seq++
	rec.Seq = l.seq
	if len(l.records) < l.max {
		l.records = append(l.records, rec)
	}
}

// Exit marks the client's exit, now: each exchange still under way is
// recorded as it stands (Cut), in the order they started, and those begun
// later are left out. Only the first call counts.
func (l *Log) Exit() {
	at := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.exited {
		return
	}
	l.exited = true
	open := make([]*Exchange, 0, len(l.live))
	for x := range l.live {
		open = append(open, x)
	}
	slices.SortFunc(open, func(a, b *Exchange) int { return cmp.Compare(a.n, b.n) })
	for _, x := range open {
		x.cut = true
		Cut(&x.rec, x.w, at)
		l.keep(x.rec)
	}
	clear(l.live)
}

// Records returns a copy of the records, in the order their exchanges
// ended (those open at the exit last, in the order they started).
func (l *Log) Records() []judge.WireRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.records)
}
