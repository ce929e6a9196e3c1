package engine

import (
	"github.com/a2amock/a2amock/engine/internal/pages"
	"github.com/a2amock/a2amock/wire"
)

// List answers ListTasks: newest status first, paged by an opaque token.
func (a *Agent) List(q wire.ListTasksQuery) (*wire.TaskPage, *wire.Error) {
	size := q.PageSize
	if size == 0 { // not said: the codecs refuse an explicit 0 (the proto allows 1 to 100)
		size = 50
	}
	if size < 1 || size > 100 {
		return nil, wire.ErrInvalidParams("pageSize", "must be between 1 and 100")
	}
	type ref struct {
		e   *taskEntry
		pos pages.Cursor
	}
	a.mu.Lock()
	var after *pages.Cursor
	if q.PageToken != "" {
		c, ok := a.pages.Lookup(q.PageToken)
		if !ok {
			a.mu.Unlock()
			return nil, wire.ErrInvalidParams("pageToken", "not a token this agent issued (or one of more than 1024 issued since)")
		}
		after = &c
	}
	var matched []ref
	for _, e := range a.store.Matching(q) {
		matched = append(matched, ref{e, pages.Cursor{UnixNano: e.task.Status.Timestamp.UnixNano(), Seq: e.seq}})
	}
	a.mu.Unlock()
	start, end := pages.Slice(matched, func(r ref) pages.Cursor { return r.pos }, after, size)
	page := &wire.TaskPage{PageSize: size, TotalSize: len(matched)}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, r := range matched[start:end] {
		t := r.e.task.Clone().TrimHistory(q.HistoryLength)
		if !q.IncludeArtifacts {
			t.Artifacts = nil
		}
		page.Tasks = append(page.Tasks, t)
	}
	if end < len(matched) {
		page.NextPageToken = a.pages.Issue(matched[end-1].pos)
	}
	return page, nil
}
