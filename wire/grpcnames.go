package wire

import "github.com/a2amock/a2amock/wire/internal/httpstatus"

// GRPCStatusName is the google.rpc.Code name an HTTP+JSON error body
// gives an HTTP status: INTERNAL for an unmapped 5xx, UNKNOWN for another
// unmapped status.
func GRPCStatusName(status int) string { return httpstatus.GRPCName(status) }
