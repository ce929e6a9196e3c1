package server

// Note journals a note about the named agent (Detail is the text) and
// returns its sequence number. The server does nothing else with it.
func (s *Server) Note(agent, detail string) int64 {
	return s.record(Entry{Agent: agent, Kind: EntryNote, Detail: detail})
}
