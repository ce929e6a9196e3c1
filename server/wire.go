package server

import "github.com/a2amock/a2amock/server/internal/wirecap"

// The raw bytes of the last exchanges with the agents are kept by package
// wirecap and served at GET /_a2amock/journal/wire?request=N (an A2A
// request's number, as its journal entries carry it) or ?seq=S (a card or
// JWKS fetch's journal entry).
type (
	// WireExchange is the raw view of one HTTP exchange with an agent.
	WireExchange = wirecap.Exchange
	// WireBody is the start of a body: Text when it is UTF-8, else Base64;
	// Size counts every byte, Truncated says the rest was not kept.
	WireBody = wirecap.Body
)
