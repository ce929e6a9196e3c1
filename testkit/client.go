package testkit

import (
	"context"
	"net/http"

	"google.golang.org/grpc"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/testkit/a2aclient"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// The test client lives in package a2aclient; these names are testkit's
// way in to it.
type (
	// Client is a small A2A client that records what it sees in a ledger
	// (a2aclient.Client).
	Client = a2aclient.Client
	// ClientOption configures a Client.
	ClientOption = a2aclient.ClientOption
	// RPCError is an error an agent answered, with its code.
	RPCError = a2aclient.RPCError
)

// WithHTTPClient sets the HTTP client a Client uses.
func WithHTTPClient(c *http.Client) ClientOption { return a2aclient.WithHTTPClient(c) }

// WithLedger makes a Client record every state it sees in l.
func WithLedger(l *reconcile.Ledger) ClientOption { return a2aclient.WithLedger(l) }

// WithClientDialect selects the JSON-RPC method set and wire shapes.
func WithClientDialect(d wire.Dialect) ClientOption { return a2aclient.WithClientDialect(d) }

// WithBinding selects the binding a Client speaks: JSON-RPC (the
// default), HTTP+JSON or gRPC (v1.0's lf.a2a.v1.A2AService).
func WithBinding(b wire.Binding) ClientOption { return a2aclient.WithBinding(b) }

// WithTenant sets the tenant every gRPC request of a Client carries, which
// names the agent of a server whose agents share one gRPC endpoint.
func WithTenant(tenant string) ClientOption { return a2aclient.WithTenant(tenant) }

// WithGRPCDialOptions adds options to a Client's gRPC connection, such as
// TLS credentials (plaintext h2c by default).
func WithGRPCDialOptions(opts ...grpc.DialOption) ClientOption {
	return a2aclient.WithGRPCDialOptions(opts...)
}

// WithClientHeader adds a header to every request.
func WithClientHeader(key, value string) ClientOption { return a2aclient.WithClientHeader(key, value) }

// NewClient returns a client of the agent at agentURL.
func NewClient(agentURL string, opts ...ClientOption) *Client {
	return a2aclient.NewClient(agentURL, opts...)
}

// DiscoverClient fetches the card at cardURL and returns a client of the
// interface it declares, with the card.
func DiscoverClient(ctx context.Context, cardURL string, opts ...ClientOption) (*Client, *cards.Card, error) {
	return a2aclient.DiscoverClient(ctx, cardURL, opts...)
}

// ClientForCard returns a client of the interface card declares.
func ClientForCard(card *cards.Card, opts ...ClientOption) (*Client, error) {
	return a2aclient.ClientForCard(card, opts...)
}

// ErrNoJSONRPCInterface is returned by DiscoverClient and ClientForCard
// for a card that declares no interface the client speaks.
var ErrNoJSONRPCInterface = a2aclient.ErrNoJSONRPCInterface
