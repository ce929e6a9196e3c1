package server

import "github.com/a2amock/a2amock/server/internal/restroute"

// LegacySubscribeRoute is the route pattern (after the method) of the
// pre-1.0 SubscribeToTask path, as the journal and Request.Method give it.
const LegacySubscribeRoute = restroute.LegacySubscribeRoute
