package server

import "github.com/a2amock/a2amock/journal"

// The journal's model lives in package journal; these names keep the
// server's API as it was.
type (
	// EntryKind is journal.EntryKind.
	EntryKind = journal.EntryKind
	// Entry is journal.Entry.
	Entry = journal.Entry
	// Journal is journal.Journal.
	Journal = journal.Journal
	// SkippedBehavior is journal.SkippedBehavior.
	SkippedBehavior = journal.SkippedBehavior
	// ActedBehavior is journal.ActedBehavior.
	ActedBehavior = journal.ActedBehavior
)

// The journal entry kinds (see package journal).
const (
	EntryRequest     = journal.EntryRequest
	EntryResponse    = journal.EntryResponse
	EntryDecision    = journal.EntryDecision
	EntryEvent       = journal.EntryEvent
	EntryStreamClose = journal.EntryStreamClose
	EntryCard        = journal.EntryCard
	EntryJWKS        = journal.EntryJWKS
	EntryStreamEvent = journal.EntryStreamEvent
	EntryWithheld    = journal.EntryWithheld
	EntryPush        = journal.EntryPush
	EntryDropped     = journal.EntryDropped
	EntryNote        = journal.EntryNote
)

// The hooks an ActedBehavior names (see package journal).
const (
	HookReject          = journal.HookReject
	HookDecide          = journal.HookDecide
	HookPlan            = journal.HookPlan
	HookResult          = journal.HookResult
	HookStreamEvent     = journal.HookStreamEvent
	HookStreamEnd       = journal.HookStreamEnd
	HookStreamNotStream = journal.HookStreamNotStream
	HookDelay           = journal.HookDelay
	HookTransport       = journal.HookTransport
	HookLegacySubscribe = journal.HookLegacySubscribe
	HookCard            = journal.HookCard
	HookCardJSON        = journal.HookCardJSON
	HookSignedCard      = journal.HookSignedCard
	HookHideCardPath    = journal.HookHideCardPath
	HookPush            = journal.HookPush
	HookPushBeforeReply = journal.HookPushBeforeReply
)

// Append journals e as one of the server's own entries (its Seq and Time
// are set here) and returns its Seq. It is for a front that answers some
// requests itself, as package record's replay does with the recorded bytes
// the model cannot express, so that the server's journal stays the one
// record of what every client received.
func (s *Server) Append(e Entry) int64 { return s.rec.Record(e) }

// NewRequestNumber returns a fresh request number (Entry.Request) for a
// request a front answers itself, from the sequence the server numbers its
// own requests with.
func (s *Server) NewRequestNumber() int64 { return s.rec.NewRequestNumber() }

// Note journals a note about the named agent (Detail is the text) and
// returns its sequence number. The server does nothing else with it.
func (s *Server) Note(agent, detail string) int64 {
	return s.rec.Record(Entry{Agent: agent, Kind: EntryNote, Detail: detail})
}
