// Package journal is the record of everything an a2amock server did: the
// requests as they arrived, the decisions, the events, what each stream
// really carried after the stream behaviors shaped it, pushes, card
// fetches, and which behaviors acted on each request. It is the one truth
// the assertions, the control API, conform's checks and record/replay
// read.
//
// The package holds the entry model and the bounded, concurrency-safe
// store of entries; it serves nothing. The server appends to it and its
// control API serves it.
package journal

import (
	"slices"
	"sync"
)

// Journal is the ordered, bounded record of everything the server did. It
// keeps the newest Retention entries in blocks, so appending never copies old
// entries; Seq keeps counting across evictions so a reader can tell entries
// were dropped. All its methods are safe for concurrent use; one mutex
// guards it and is never held while calling out, except for the function
// Amend and Page are given, which must not call back into the journal.
type Journal struct {
	mu        sync.Mutex
	retention int
	// blocks hold the retained entries, each from the start of its own
	// array of capacity block; the oldest begins at blocks[0][head].
	blocks [][]Entry
	head   int
	// spare is a block whose entries were all evicted, kept for the next
	// block: at the retention limit every entry added evicts
	// one, and a new block each time would be allocated and zeroed only
	// for the collector to reclaim one just like it.
	spare []Entry
	n     int
	seq   int64
	// changed is closed (and dropped) on the next add or reset, for the
	// readers of the event stream waiting for one; epoch counts resets.
	changed chan struct{}
	epoch   int64
}

// DefaultRetention is the number of entries a journal keeps when New is
// given 0 or less.
const DefaultRetention = 100_000

const block = 1024

// New returns an empty journal that keeps the newest retention entries
// (DefaultRetention when retention is 0 or less).
func New(retention int) *Journal {
	if retention <= 0 {
		retention = DefaultRetention
	}
	return &Journal{retention: retention}
}

// Add appends e, numbering it (its Seq is set here), and returns its Seq.
// The oldest entries beyond the retention are evicted.
func (j *Journal) Add(e Entry) int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq++
	e.Seq = j.seq
	last := len(j.blocks) - 1
	if last < 0 || len(j.blocks[last]) == cap(j.blocks[last]) {
		next := j.spare
		if next == nil {
			next = make([]Entry, 0, block)
		}
		j.spare = nil
		j.blocks = append(j.blocks, next)
		last++
	}
	j.blocks[last] = append(j.blocks[last], e)
	j.n++
	j.signal()
	for j.n > j.retention {
		// Evicted entries are not cleared: the block is written over when
		// it is reused, and clearing first doubled the collector's write
		// barriers on every add at the limit. What they still point to
		// is kept alive until then: at most two blocks' worth.
		first := j.blocks[0]
		drop := min(j.n-j.retention, len(first)-j.head)
		j.head += drop
		j.n -= drop
		if j.head == len(first) {
			// Only a full block is ever left behind: Add fills the newest
			// before it starts another.
			if len(first) == cap(first) {
				j.spare = first[:0]
			}
			j.blocks[0] = nil
			j.blocks = j.blocks[1:]
			j.head = 0
		}
	}
	return e.Seq
}

// block returns the retained entries of block k; j.mu is held.
func (j *Journal) block(k int) []Entry {
	if k == 0 {
		return j.blocks[0][j.head:]
	}
	return j.blocks[k]
}

// Entries returns a copy of the retained entries, oldest first.
func (j *Journal) Entries() []Entry {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]Entry, 0, j.n)
	for k := range j.blocks {
		out = append(out, j.block(k)...)
	}
	return out
}

// Since returns the retained entries with Seq > seq. It copies only those:
// a client polling the control API for what is new would otherwise copy the
// whole journal (up to Retention entries) on every poll.
func (j *Journal) Since(seq int64) []Entry {
	j.mu.Lock()
	defer j.mu.Unlock()
	// The retained entries carry the consecutive numbers j.seq-j.n+1 .. j.seq.
	var skip int64
	if before := j.seq - int64(j.n); seq > before {
		skip = seq - before
	}
	if skip >= int64(j.n) {
		return nil
	}
	out := make([]Entry, 0, int64(j.n)-skip)
	for k := range j.blocks {
		b := j.block(k)
		if skip >= int64(len(b)) {
			skip -= int64(len(b))
			continue
		}
		out = append(out, b[skip:]...)
		skip = 0
	}
	return out
}

// Len returns the number of retained entries.
func (j *Journal) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.n
}

// LastSeq returns the sequence number of the last entry added since the
// last Reset (0 when none was).
func (j *Journal) LastSeq() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.seq
}

// Reset empties the journal and starts its numbering over; the readers
// waiting in Watch are woken and see a new epoch.
func (j *Journal) Reset() {
	j.mu.Lock()
	j.blocks, j.head, j.n, j.seq = nil, 0, 0, 0
	j.epoch++
	j.signal()
	j.mu.Unlock()
}

// Amend changes the retained entry numbered seq in place; an entry already
// evicted is left alone.
func (j *Journal) Amend(seq int64, f func(*Entry)) {
	j.mu.Lock()
	defer j.mu.Unlock()
	first := j.seq - int64(j.n) + 1
	if seq < first || seq > j.seq {
		return
	}
	i := seq - first
	for k := range j.blocks {
		b := j.block(k)
		if i < int64(len(b)) {
			f(&b[i])
			return
		}
		i -= int64(len(b))
	}
}

// Page returns the retained entries with Seq > since that keep accepts,
// oldest first, at most limit of them (0: all), and how many matched in
// all. Only the kept entries are copied.
func (j *Journal) Page(since int64, keep func(*Entry) bool, limit int) ([]Entry, int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var skip int64
	if before := j.seq - int64(j.n); since > before {
		skip = since - before
	}
	out := []Entry{}
	total := 0
	for k := range j.blocks {
		b := j.block(k)
		if skip >= int64(len(b)) {
			skip -= int64(len(b))
			continue
		}
		for i := range b[skip:] {
			e := &b[skip+int64(i)]
			if keep(e) {
				total++
				if limit <= 0 || len(out) < limit {
					out = append(out, *e)
				}
			}
		}
		skip = 0
	}
	return out, total
}

// Filter returns the retained entries with Seq > since of the named agent
// (any agent when empty), of the named task (any when empty: an entry
// belongs to a task when it names it as TaskID or RefTaskID) and of the
// given kinds (any when none), oldest first, and how many there are.
func (j *Journal) Filter(since int64, agent, task string, kinds ...EntryKind) []Entry {
	out, _ := j.Page(since, Match(agent, task, kinds), 0)
	return out
}

// Match is the filter of Filter as a function for Page.
func Match(agent, task string, kinds []EntryKind) func(*Entry) bool {
	return func(e *Entry) bool {
		return (agent == "" || e.Agent == agent) &&
			(task == "" || e.TaskID == task || e.RefTaskID == task) &&
			(len(kinds) == 0 || slices.Contains(kinds, e.Kind))
	}
}

// signal wakes the readers waiting for a change; j.mu is held.
func (j *Journal) signal() {
	if j.changed != nil {
		close(j.changed)
		j.changed = nil
	}
}

// Watch returns a channel closed at the next change of the journal, the
// number of resets so far and the last sequence number.
func (j *Journal) Watch() (<-chan struct{}, int64, int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.changed == nil {
		j.changed = make(chan struct{})
	}
	return j.changed, j.epoch, j.seq
}
