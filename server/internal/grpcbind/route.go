package grpcbind

import (
	"bytes"
	"encoding/binary"
	"io"
	"net/http"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/a2amock/a2amock/server/internal/binding"
	"github.com/a2amock/a2amock/wire"
)

// call is a gRPC call read as far as the agent it is for: its service,
// method and operation (nil, "" and "" when its path names no method of a
// service), that agent, and its request message once decoded.
type call struct {
	svc    *service
	method string
	op     wire.Op
	at     agentRef
	in     proto.Message
	// tenant is the tenant in, of a service with tenants, names.
	tenant string
}

// refusal is why a call is refused before it is served: e, answered with
// the gRPC status code (e's message), or as e maps to one (grpcReply.Fail)
// when code is OK.
type refusal struct {
	e    *wire.Error
	code codes.Code
}

// route reads the call r at path (below agent a's base) as far as the
// agent it is for, in the order Serve refuses it: its method, the route of
// a service whose requests carry no tenant (v0.3's), its content type, its
// body (read by body), its one uncompressed message, and the tenant of a
// service that has them. A call refused on the way is refused as c.at's
// agent: its path's, or the one its service's route picked. Serve answers
// by it and CallOf names the agent by it, so that the two cannot
// disagree on which agent a call is journaled as.
func (b *Binding) route(r *http.Request, a binding.Agent, base, path string, body func() ([]byte, *wire.Error)) (c call, no *refusal) {
	c.at = agentRef{a: a, base: base}
	svc, name := serviceOf(path)
	m, ok := svc.method(name)
	if !ok {
		return c, &refusal{wire.Errorf(wire.CodeMethodNotFound, "unknown method %s", path), codes.Unimplemented}
	}
	c.svc, c.method, c.op = svc, name, m.op
	if svc.route != nil {
		at, e := svc.route(b, c.at)
		if e != nil {
			return c, &refusal{e, codes.Unimplemented}
		}
		c.at = at
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/grpc" && ct != "application/grpc+proto" {
		return c, &refusal{wire.Errorf(wire.CodeContentTypeNotSupported, "content-type %s is not served: only application/grpc (proto)", ct), codes.Unimplemented}
	}
	msg, e := body()
	if e != nil {
		return c, &refusal{e, codes.OK}
	}
	if len(msg) < 5 || msg[0] != 0 || int(binary.BigEndian.Uint32(msg[1:5])) != len(msg)-5 {
		if len(msg) >= 5 && msg[0] != 0 {
			return c, &refusal{wire.Errorf(wire.CodeInvalidRequest, "compressed messages are not supported"), codes.Unimplemented}
		}
		return c, &refusal{wire.Errorf(wire.CodeParseError, "the request is not one length-prefixed gRPC message"), codes.Internal}
	}
	c.in = m.req()
	if err := proto.Unmarshal(msg[5:], c.in); err != nil {
		return c, &refusal{wire.Errorf(wire.CodeParseError, "decode %s request: %v", name, err), codes.Internal}
	}
	// Every agent shares the endpoint: a tenant naming an agent (its card
	// declares it) routes the call there; none, or another, is the path's.
	if t, ok := c.in.(interface{ GetTenant() string }); ok && svc.tenants && t.GetTenant() != "" {
		c.tenant = t.GetTenant()
		if ta, tbase, found := b.host.TenantAgent(c.tenant); found {
			c.at = agentRef{a: ta, base: tbase}
		}
	}
	return c, nil
}

// CallOf reads the gRPC call r at path (below agent a's base) as Serve
// routes it (route), on its arrival: the agent it is served or refused as
// (a v0.3 call's by its service's route, a v1.0 call's by the tenant its
// message names), the method its path names (journaled as; "" when no
// service served has it), and the tenant its message carries, of a
// service with tenants only ("" for v0.3's, whose requests have none, and
// for a call refused before its message was read). It reads r's body as
// Serve does, up to the same limit, and leaves r.Body reading it whole
// from its start, for Serve: the one copy of the body there is until the
// call is served. a2amock conform records an exchange by it when it
// arrives, before the call is served.
func (b *Binding) CallOf(r *http.Request, a binding.Agent, base, path string) (at binding.Agent, method, tenant string) {
	c, _ := b.route(r, a, base, path, func() ([]byte, *wire.Error) { return peekBody(r, b.bodyLimit()) })
	return c.at.a, c.method, c.tenant
}

// bodyLimit bounds a call's body: one message of the host's MaxBodyBytes
// and its 5-byte prefix.
func (b *Binding) bodyLimit() int64 { return b.host.MaxBodyBytes() + 5 }

// peekBody reads r's body as binding.ReadBody does (the same bytes, the
// same refusals), and puts what it read back in front of the rest.
func peekBody(r *http.Request, limit int64) ([]byte, *wire.Error) {
	if r.ContentLength > limit {
		return binding.ReadBody(r, limit) // refuses it unread
	}
	if r.Body == nil {
		return nil, nil
	}
	read, err := readCall(r.Body, limit+1, r.ContentLength)
	r.Body = readCloser{io.MultiReader(bytes.NewReader(read), r.Body), r.Body}
	if err != nil || int64(len(read)) > limit {
		return nil, wire.Errorf(wire.CodeInvalidRequest, "request body exceeds the limit of %d bytes", limit)
	}
	return read, nil
}

// readCall reads body to its end, or to limit bytes, as
// io.ReadAll(io.LimitReader(body, limit)) does (the same bytes, the same
// error), but in a buffer sized by the call's first message, not grown
// from 512 bytes by doubling (some 2.2 MB allocated for a 1 MiB message):
// the 5-byte prefix of a gRPC body gives that message's length. A prefix
// is the client's word, so it sizes the buffer no larger than limit, nor
// than the body's declared length (size, when not -1); a body longer than
// its prefix says (several messages, or a lying prefix) goes on reading
// as ReadAll would, a shorter one stops at its end.
func readCall(body io.Reader, limit, size int64) ([]byte, error) {
	lr := io.LimitReader(body, limit)
	head := make([]byte, 5)
	if n, err := io.ReadFull(lr, head); err != nil {
		return head[:n], eofIsEnd(err)
	}
	want := min(5+int64(binary.BigEndian.Uint32(head[1:])), limit)
	if size >= 5 {
		want = min(want, size)
	}
	buf := make([]byte, want)
	copy(buf, head)
	if n, err := io.ReadFull(lr, buf[5:]); err != nil {
		return buf[:5+n], eofIsEnd(err)
	}
	// The rest is nothing (EOF) for a body of one message, as its prefix
	// said.
	rest, err := io.ReadAll(lr)
	return append(buf, rest...), err
}

// eofIsEnd is err of io.ReadFull as io.ReadAll reports it: a body that
// ended early is no error.
func eofIsEnd(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return nil
	}
	return err
}

type readCloser struct {
	io.Reader
	io.Closer
}
