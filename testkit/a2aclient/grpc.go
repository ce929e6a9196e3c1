package a2aclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/testkit/a2aclient/internal/grpcwire"
	"github.com/a2amock/a2amock/testkit/reconcile"
	"github.com/a2amock/a2amock/wire"
)

// The v1.0 gRPC binding: lf.a2a.v1.A2AService (the messages of
// internal/a2apb, generated from the proto, not an SDK's), at the
// interface's host:port, every call with the a2a-version metadata and, for
// an agent below a server's root, its tenant in the request. Errors are
// google.rpc.Status whose ErrorInfo reason names the A2A error (the same
// reasons as HTTP+JSON's), read into an *RPCError. The messages are
// converted to and from the wire model by the client's own package
// grpcwire, not the mock's conversion.

// grpcDialect is the only dialect the client speaks over gRPC: the one
// whose service a2apb's is, as the wire descriptors name it (v1.0's
// lf.a2a.v1.A2AService; v0.3's a2a.v1.A2AService is another service and
// other messages, which this client does not have).
var grpcDialect, _, _ = wire.LookupGRPCMethod(a2apb.A2AService_SendMessage_FullMethodName)

// WithTenant sets the tenant every gRPC request carries (v1.0
// AgentInterface.tenant): a server's agents share one gRPC endpoint, and
// the tenant names the agent a call is for. ClientForCard sets the one the
// picked interface declares. The HTTP bindings do not send it: the mock
// routes them by path.
func WithTenant(tenant string) ClientOption { return func(cl *Client) { cl.tenant = tenant } }

// WithGRPCDialOptions adds options to the gRPC connection, after the
// default plaintext (h2c) transport credentials, which a
// grpc.WithTransportCredentials among them replaces (for a TLS agent).
func WithGRPCDialOptions(opts ...grpc.DialOption) ClientOption {
	return func(cl *Client) { cl.grpcDial = append(cl.grpcDial, opts...) }
}

// grpcInterface is the card's v1.0 GRPC interface when opts ask for the
// gRPC binding, else nil (ClientForCard then keeps its HTTP rules).
func grpcInterface(card *cards.Card, opts []ClientOption) *cards.Interface {
	asked := &Client{header: http.Header{}}
	for _, o := range opts {
		o(asked)
	}
	for i := range card.Interfaces {
		if in := &card.Interfaces[i]; asked.binding == wire.BindingGRPC && in.Binding == wire.BindingGRPC && in.Version == grpcDialect {
			return in
		}
	}
	return nil
}

// grpcService returns the service client of the connection, dialing it
// when there is none (the first call, or the first after
// CloseIdleConnections).
func (c *Client) grpcService() (a2apb.A2AServiceClient, error) {
	if c.dialect != grpcDialect {
		return nil, fmt.Errorf("testkit: the gRPC binding is spoken in A2A %s only (%s), not %s", grpcDialect, a2apb.ServicePath, c.dialect)
	}
	c.grpcMu.Lock()
	defer c.grpcMu.Unlock()
	if c.grpcConn == nil {
		// A card declares host:port; an http:// URL (a server's origin) is
		// taken for the same.
		target := strings.TrimSuffix(strings.TrimPrefix(c.url, "http://"), "/")
		opts := append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, c.grpcDial...)
		conn, err := grpc.NewClient(target, opts...)
		if err != nil {
			return nil, fmt.Errorf("testkit: gRPC target %s: %w", target, err)
		}
		c.grpcConn = conn
	}
	return a2apb.NewA2AServiceClient(c.grpcConn), nil
}

// closeGRPC closes the gRPC connection, if any; the next call dials anew.
func (c *Client) closeGRPC() {
	c.grpcMu.Lock()
	defer c.grpcMu.Unlock()
	if c.grpcConn != nil {
		_ = c.grpcConn.Close()
		c.grpcConn = nil
	}
}

// grpcContext is ctx with the call's metadata: a2a-version and the
// client's headers (gRPC metadata keys are lower case).
func (c *Client) grpcContext(ctx context.Context) context.Context {
	kv := []string{"a2a-version", string(c.dialect)}
	for k, vs := range c.header {
		for _, v := range vs {
			kv = append(kv, strings.ToLower(k), v)
		}
	}
	return metadata.AppendToOutgoingContext(ctx, kv...)
}

func (c *Client) grpcSendRequest(msg *wire.Message, opts reconcile.SendOptions) (*a2apb.SendMessageRequest, error) {
	pm, err := grpcwire.Message(msg)
	if err != nil {
		return nil, err
	}
	req := &a2apb.SendMessageRequest{Tenant: c.tenant, Message: pm}
	if opts.ReturnImmediately || len(opts.AcceptedOutputModes) > 0 {
		req.Configuration = &a2apb.SendMessageConfiguration{ReturnImmediately: opts.ReturnImmediately, AcceptedOutputModes: opts.AcceptedOutputModes}
	}
	return req, nil
}

func (c *Client) grpcSend(ctx context.Context, msg *wire.Message, opts reconcile.SendOptions) (*wire.Task, *wire.Message, error) {
	svc, err := c.grpcService()
	if err != nil {
		return nil, nil, err
	}
	req, err := c.grpcSendRequest(msg, opts)
	if err != nil {
		return nil, nil, err
	}
	resp, err := svc.SendMessage(c.grpcContext(ctx), req)
	if err != nil {
		return nil, nil, grpcFailure(ctx, "SendMessage", err)
	}
	switch {
	case resp.GetTask() != nil:
		t := grpcwire.TaskOf(resp.GetTask())
		c.record(reconcile.SourceSendResponse, wire.Event{Task: t})
		return t, nil, nil
	case resp.GetMessage() != nil:
		return nil, grpcwire.MessageOf(resp.GetMessage()), nil
	}
	return nil, nil, errors.New("testkit: SendMessage answered neither a task nor a message")
}

func (c *Client) grpcTaskCall(ctx context.Context, method, id string, src reconcile.Source) (*wire.Task, error) {
	svc, err := c.grpcService()
	if err != nil {
		return nil, err
	}
	var pt *a2apb.Task
	if src == reconcile.SourceCancel {
		pt, err = svc.CancelTask(c.grpcContext(ctx), &a2apb.CancelTaskRequest{Tenant: c.tenant, Id: id})
	} else {
		pt, err = svc.GetTask(c.grpcContext(ctx), &a2apb.GetTaskRequest{Tenant: c.tenant, Id: id})
	}
	if err != nil {
		return nil, grpcFailure(ctx, method, err)
	}
	if pt.GetId() == "" {
		return nil, fmt.Errorf("testkit: %s result is not a task (no id)", method)
	}
	t := grpcwire.TaskOf(pt)
	c.record(src, wire.Event{Task: t})
	return t, nil
}

// grpcStream is Stream over gRPC, with the same contract: the first event
// is read before it returns, so that a refusal (a status before any
// event) is the error of the call; a status after events is yielded as an
// *RPCError; the call ends when the iteration does.
func (c *Client) grpcStream(ctx context.Context, msg *wire.Message) (iter.Seq2[wire.Event, error], error) {
	svc, err := c.grpcService()
	if err != nil {
		return nil, err
	}
	req, err := c.grpcSendRequest(msg, reconcile.SendOptions{})
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithCancel(c.grpcContext(ctx))
	st, err := svc.SendStreamingMessage(sctx, req)
	if err != nil {
		cancel()
		return nil, grpcFailure(ctx, "SendStreamingMessage", err)
	}
	first, err := st.Recv()
	if err != nil && !errors.Is(err, io.EOF) {
		cancel()
		return nil, grpcFailure(ctx, "SendStreamingMessage", err)
	}
	return func(yield func(wire.Event, error) bool) {
		defer cancel()
		for resp := first; resp != nil; {
			ev, err := grpcwire.EventOf(resp)
			if err != nil {
				yield(wire.Event{}, err)
				return
			}
			c.record(reconcile.SourceStream, ev)
			if !yield(ev, nil) {
				return
			}
			if resp, err = st.Recv(); err != nil && !errors.Is(err, io.EOF) {
				yield(wire.Event{}, grpcFailure(ctx, "SendStreamingMessage", err))
				return
			}
		}
	}, nil
}

// grpcFailure reads a failed call's error: the agent's status as an
// *RPCError, or, when ctx ended the call, ctx's error.
func grpcFailure(ctx context.Context, method string, err error) error {
	st, ok := status.FromError(err)
	if !ok {
		return fmt.Errorf("testkit: %s: %w", method, err)
	}
	if cerr := ctx.Err(); cerr != nil && (st.Code() == codes.Canceled || st.Code() == codes.DeadlineExceeded) {
		return fmt.Errorf("testkit: %s: %w (%v)", method, cerr, err)
	}
	return grpcError(st)
}

// grpcError reads a gRPC status as an *RPCError: the A2A code its
// ErrorInfo reason names (the reasons of HTTP+JSON) or, without one, the
// code its status implies (grpcStatusCode). Data holds the details as
// ProtoJSON, as HTTP+JSON's are.
func grpcError(st *status.Status) *RPCError {
	e := &RPCError{Message: st.Message(), GRPCCode: st.Code()}
	var details []json.RawMessage
	for _, d := range st.Proto().GetDetails() {
		if b, err := protojson.Marshal(d); err == nil {
			details = append(details, b)
		}
		var info errdetails.ErrorInfo
		if e.Reason == "" && d.UnmarshalTo(&info) == nil {
			if code, ok := restReasons[info.GetReason()]; ok {
				e.Code, e.Reason = code, info.GetReason()
			}
		}
	}
	if e.Code == 0 {
		e.Code = grpcStatusCode(st.Code())
	}
	if len(details) > 0 {
		e.Data, _ = json.Marshal(details)
	}
	return e
}

// grpcStatusCode is the A2A code a status without an ErrorInfo stands
// for: NOT_FOUND is only ever TaskNotFound (v1.0 §5.4); UNIMPLEMENTED is
// gRPC's answer to a method the server lacks and v1.0.0's to a refused
// operation, both what errors.Is reports as reconcile.ErrNotSupported;
// FAILED_PRECONDITION is shared by several errors, so it stays an
// internal error (GRPCCode still says which).
func grpcStatusCode(code codes.Code) int {
	switch code {
	case codes.NotFound:
		return wire.CodeTaskNotFound
	case codes.Unimplemented:
		return wire.CodeUnsupportedOperation
	case codes.InvalidArgument:
		return wire.CodeInvalidParams
	case codes.Unauthenticated:
		return wire.CodeUnauthenticated
	case codes.PermissionDenied:
		return wire.CodeUnauthorized
	}
	return wire.CodeInternal
}
