package server

// EntryNote is a note a harness wrote into the journal (Server.Note): a
// change it made to the run while the client was using it, such as
// a2amock conform changing an agent's card mid-run, so that a check can
// tell what the client did before the change from what it did after.
const EntryNote EntryKind = "note"

// Note journals a note about the named agent (Detail is the text) and
// returns its sequence number. The server does nothing else with it.
func (s *Server) Note(agent, detail string) int64 {
	return s.record(Entry{Agent: agent, Kind: EntryNote, Detail: detail})
}
