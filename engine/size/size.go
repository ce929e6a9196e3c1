// Package size estimates the memory a task's content holds, in bytes: its
// ids, the text, raw bytes, URLs and data of its parts, and metadata. The
// engine's task store bounds the bytes it keeps with it, and the bindings
// bound the parts and messages a request may carry.
package size

import "github.com/a2amock/a2amock/wire"

// Task estimates the memory a task's content holds: its ids, the text,
// raw bytes, URLs and data of every part of its history, status message and
// artifacts, and metadata.
func Task(t *wire.Task) int64 {
	n := int64(len(t.ID) + len(t.ContextID))
	for i := range t.History {
		n += message(&t.History[i])
	}
	if t.Status.Message != nil {
		n += message(t.Status.Message)
	}
	for i := range t.Artifacts {
		art := &t.Artifacts[i]
		n += int64(len(art.ArtifactID)+len(art.Name)+len(art.Description)) + Parts(art.Parts) + Value(art.Metadata)
	}
	return n + Value(t.Metadata)
}

func message(m *wire.Message) int64 {
	n := int64(len(m.MessageID)+len(m.ContextID)+len(m.TaskID)) + Parts(m.Parts) + Value(m.Metadata)
	for _, s := range m.ReferenceTaskIDs {
		n += int64(len(s))
	}
	return n
}

// Parts estimates the memory parts hold (see Task).
func Parts(ps []wire.Part) int64 {
	var n int64
	for i := range ps {
		p := &ps[i]
		n += int64(len(p.Text)+len(p.Raw)+len(p.URL)+len(p.MediaType)+len(p.Filename)) + Value(p.Data) + Value(p.Metadata)
	}
	return n
}

// Value estimates a decoded JSON value: its strings and 8 bytes per
// other scalar.
func Value(v any) int64 {
	switch x := v.(type) {
	case nil:
		return 0
	case string:
		return int64(len(x))
	case map[string]any:
		// Most metadata is absent (a nil map): skip starting an iteration
		// for it, which the engine would pay at every step of every task.
		if len(x) == 0 {
			return 0
		}
		var n int64
		for k, e := range x {
			n += int64(len(k)) + Value(e)
		}
		return n
	case []any:
		var n int64
		for _, e := range x {
			n += Value(e)
		}
		return n
	}
	return 8
}
