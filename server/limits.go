package server

import (
	"strconv"
	"unicode/utf8"

	"github.com/a2amock/a2amock/engine"
	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/wire"
)

// MaxIDBytes bounds every id a request carries — task, context, message,
// push-config, referenced task ids and tenant — on both bindings (it is the
// bound the HTTP+JSON routes have always had). A longer id is answered with
// InvalidParamsError before anything is stored, so an unknown 3 MiB id no
// longer costs its size several times over in the journal and the answer.
const MaxIDBytes = binding.MaxIDBytes

// MaxPushConfigsPerTask bounds the push configs one task holds: a client
// creating configs under ever new ids would otherwise grow the task (and the
// notifications each event fans out to) without bound.
const MaxPushConfigsPerTask = 100

// Defaults of the message and part bounds (Config.MaxMessageBytes,
// Config.MaxPartBytes).
const (
	DefaultMaxMessageBytes = 2 << 20
	DefaultMaxPartBytes    = 1 << 20
)

// journalIDBytes is how much of an over-long id the journal keeps.
const journalIDBytes = 64

// checkSizes applies MaxIDBytes, MaxPartBytes and MaxMessageBytes to a
// decoded request of either binding; it names the first offending field
// without echoing its value.
func (s *Server) checkSizes(req *wire.Request) *wire.Error {
	tooLong := func(field string, n int) *wire.Error {
		return wire.ErrInvalidParams(field, "is "+strconv.Itoa(n)+" bytes long; ids are at most "+strconv.Itoa(MaxIDBytes)+" bytes")
	}
	type idField struct{ field, v string }
	ids := []idField{{"id", req.TaskID}, {"tenant", req.Tenant}, {"pushNotificationConfigId", req.PushConfigID}, {"contextId", req.List.ContextID}}
	if pc := req.PushConfig; pc != nil {
		ids = append(ids, idField{"pushNotificationConfig.id", pc.ID}, idField{"pushNotificationConfig.taskId", pc.TaskID})
	}
	if m := req.Message; m != nil {
		ids = append(ids, idField{"message.messageId", m.MessageID}, idField{"message.taskId", m.TaskID}, idField{"message.contextId", m.ContextID})
		for _, r := range m.ReferenceTaskIDs {
			ids = append(ids, idField{"message.referenceTaskIds", r})
		}
	}
	for _, id := range ids {
		if len(id.v) > MaxIDBytes {
			return tooLong(id.field, len(id.v))
		}
	}
	if m := req.Message; m != nil {
		total := engine.ValueBytes(m.Metadata)
		for i := range m.Parts {
			n := engine.PartsBytes(m.Parts[i : i+1])
			if n > int64(s.cfg.MaxPartBytes) {
				return wire.ErrInvalidParams("message.parts["+strconv.Itoa(i)+"]", "holds "+strconv.FormatInt(n, 10)+" bytes; a part is at most "+strconv.Itoa(s.cfg.MaxPartBytes)+" bytes (MaxPartBytes)")
			}
			total += n
		}
		if total > int64(s.cfg.MaxMessageBytes) {
			return wire.ErrInvalidParams("message", "holds "+strconv.FormatInt(total, 10)+" bytes; a message is at most "+strconv.Itoa(s.cfg.MaxMessageBytes)+" bytes (MaxMessageBytes)")
		}
	}
	return nil
}

// journalID is id as the journal keeps it: ids longer than MaxIDBytes are
// cut to their first journalIDBytes bytes and marked with their length.
func journalID(id string) string { return truncate(id, MaxIDBytes, journalIDBytes) }

// journalPath bounds a request path in the journal the same way.
func journalPath(p string) string { return truncate(p, 4*MaxIDBytes, 4*MaxIDBytes) }

// truncate returns s when it is at most limit bytes long, else its first
// keep bytes (not splitting a UTF-8 sequence) marked with s's length.
func truncate(s string, limit, keep int) string {
	if len(s) <= limit {
		return s
	}
	cut := s[:keep]
	for i := 0; i < utf8.UTFMax-1 && !utf8.ValidString(cut); i++ {
		cut = cut[:len(cut)-1]
	}
	return cut + "…(truncated, " + strconv.Itoa(len(s)) + " bytes)"
}
