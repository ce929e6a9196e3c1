package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/record/internal/cardlink"
)

// This file passes gRPC calls through the proxy. Calls of A2A's gRPC
// services (v1.0's lf.a2a.v1.A2AService, v0.3's a2a.v1.A2AService) are
// recorded with their messages in the proto's JSON form; other services'
// calls pass through unrecorded.

// IsGRPC reports whether r is a gRPC call (its content type is
// application/grpc, with or without a +suffix).
func IsGRPC(r *http.Request) bool { return IsGRPCContentType(r.Header.Get("Content-Type")) }

// IsGRPCContentType reports whether ct is gRPC's content type
// (application/grpc, with or without a +suffix or parameters).
func IsGRPCContentType(ct string) bool {
	return ct == "application/grpc" || strings.HasPrefix(ct, "application/grpc+") || strings.HasPrefix(ct, "application/grpc;")
}

// ServeH2C makes srv serve HTTP/1.1 and h2c (HTTP/2 with prior knowledge,
// as gRPC clients speak it on plain TCP), for a Proxy: call it before srv
// serves.
func ServeH2C(srv *http.Server) {
	srv.Protocols = new(http.Protocols)
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
}

// GRPCToJSON decodes one message of type md from its wire bytes into the
// proto's JSON form, compacted (protojson varies its spacing on purpose).
func GRPCToJSON(md protoreflect.MessageDescriptor, b []byte) (json.RawMessage, error) {
	m, err := newMessage(md)
	if err != nil {
		return nil, err
	}
	if err := proto.Unmarshal(b, m); err != nil {
		return nil, err
	}
	j, err := protojson.Marshal(m)
	if err != nil {
		return nil, err
	}
	return compact(j), nil
}

// GRPCFromJSON encodes a message of type md given in the proto's JSON form
// into its wire bytes.
func GRPCFromJSON(md protoreflect.MessageDescriptor, j json.RawMessage) ([]byte, error) {
	m, err := newMessage(md)
	if err != nil {
		return nil, err
	}
	if err := protojson.Unmarshal(j, m); err != nil {
		return nil, err
	}
	return proto.Marshal(m)
}

func newMessage(md protoreflect.MessageDescriptor) (proto.Message, error) {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
	if err != nil {
		return nil, fmt.Errorf("message type %s: %w", md.FullName(), err)
	}
	return mt.New().Interface(), nil
}

// grpcTarget is the upstream's gRPC address: the one the agent's card
// declared, when the proxy has seen a card with a GRPC interface, else
// the upstream URL's own host (an a2amock serves gRPC on its HTTP port).
func (p *Proxy) grpcTarget() *url.URL {
	p.mu.Lock()
	host := p.grpcHost
	p.mu.Unlock()
	u := &url.URL{Scheme: p.upstream.Scheme, Host: p.upstream.Host}
	if host != "" {
		u.Host = host
	}
	return u
}

// learnGRPC remembers the GRPC interface address of a card the upstream
// served, before the card is pointed at the proxy.
func (p *Proxy) learnGRPC(card []byte, inResult bool) {
	if host := cardlink.GRPCAddress(card, inResult); host != "" {
		p.mu.Lock()
		p.grpcHost = host
		p.mu.Unlock()
	}
}

// grpcTransport is the transport gRPC calls go upstream with: HTTP/2
// only, over TLS for an https upstream (with the TLS settings of
// ProxyOptions.Client's transport) and in the clear (h2c) otherwise.
func (p *Proxy) grpcTransport() *http.Transport {
	tr := &http.Transport{Protocols: new(http.Protocols), ForceAttemptHTTP2: true}
	if own, ok := p.client.Transport.(*http.Transport); ok && own.TLSClientConfig != nil {
		tr.TLSClientConfig = own.TLSClientConfig.Clone()
	}
	if p.upstream.Scheme == "https" {
		tr.Protocols.SetHTTP2(true)
	} else {
		tr.Protocols.SetUnencryptedHTTP2(true)
	}
	return tr
}

// grpcError answers a call the proxy could not pass on with a gRPC status
// (UNAVAILABLE, 14, as a client's own transport would say).
func grpcError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/grpc")
	w.Header().Set("Grpc-Status", strconv.Itoa(code))
	w.Header().Set("Grpc-Message", url.PathEscape(msg))
	w.WriteHeader(http.StatusOK)
}

// serveGRPC forwards one gRPC call and records it when it is a call of an
// A2A gRPC service.
func (p *Proxy) serveGRPC(w http.ResponseWriter, r *http.Request) {
	begin := time.Now()
	body, err := io.ReadAll(io.LimitReader(r.Body, p.limit+1))
	if err != nil || int64(len(body)) > p.limit {
		grpcError(w, 8, fmt.Sprintf("request larger than %d bytes or unreadable", p.limit)) // RESOURCE_EXHAUSTED
		return
	}
	md := a2apb.MethodAt(r.URL.Path)
	var sl *slot
	if md != nil {
		sl = &slot{x: Exchange{Kind: KindGRPC, Method: string(md.Name()), HTTPMethod: r.Method, Path: r.URL.Path,
			At: Duration(begin.Sub(p.start))}}
		if _, msg, _, ok := a2apb.NextMessage(body); ok {
			if j, err := GRPCToJSON(md.Input(), msg); err == nil {
				sl.x.Request = j
			}
		}
		p.arrived(sl)
		defer p.finished(sl)
	}
	target := p.grpcTarget()
	target.Path = r.URL.Path
	out, err := http.NewRequestWithContext(r.Context(), http.MethodPost, target.String(), bytes.NewReader(body))
	if err != nil {
		p.drop(sl)
		grpcError(w, 14, "build upstream request: "+upstreamError(err))
		return
	}
	endToEnd(out.Header, r.Header)
	out.Header.Set("Te", "trailers")
	resp, err := p.grpcTr.RoundTrip(out)
	if err != nil {
		if p.cutByStop(r) {
			panic(http.ErrAbortHandler) // unanswered, as for the HTTP bindings
		}
		p.drop(sl)
		grpcError(w, 14, "upstream: "+upstreamError(err))
		return
	}
	defer resp.Body.Close()
	x := &Exchange{}
	if sl != nil {
		x = &sl.x
		x.Status = resp.StatusCode
		x.ContentType = resp.Header.Get("Content-Type")
		x.HeadersAfter = Duration(time.Since(begin))
	}
	endToEnd(w.Header(), resp.Header)
	streaming := md != nil && md.IsStreamingServer()
	rd := &grpcReader{md: md, x: x, begin: begin, streaming: streaming, limit: p.limit,
		carried: func(evs []Event) { p.carried(sl, evs) }, answered: func() { p.streaming(sl, x) }}
	if resp.StatusCode != http.StatusOK || !IsGRPCContentType(resp.Header.Get("Content-Type")) {
		// Not a gRPC answer (an HTTP error, a JSON body): kept as bytes,
		// as the HTTP bindings' answers are, and passed on with its
		// length, which clients read such an answer by.
		rd.md, rd.plain = nil, true
	} else {
		w.Header().Del("Content-Length")
		if streaming {
			p.streaming(sl, x)
		}
	}
	// Not flushed until the first message: an answer with no message (a
	// trailers-only one, its status among the headers) must go out as one
	// HEADERS frame ending the stream, or the client misses its status.
	rc := http.NewResponseController(w)
	w.WriteHeader(resp.StatusCode)
	fw := &flushWriter{w: w, rc: rc}
	var to io.Writer = fw
	var held *holdLast
	if rd.plain {
		// Passed on unflushed, and its last bytes only once it has ended,
		// so that the stream ends in a DATA frame carrying them, as the
		// agent ended it. net/http's HTTP/2 server sends END_STREAM with
		// the data its 4 KiB buffer holds when the handler returns, and in
		// an empty DATA frame when that buffer is empty, as it is after a
		// flush or a write larger than it (sent past the buffer). grpc-go
		// reads a non-gRPC answer's body into its error only from DATA
		// frames that carry some, so it took that empty end for a gRPC
		// answer cut before its trailers (Internal: "server closed the
		// stream without sending trailers") rather than the content type
		// or HTTP status the agent answered with.
		held = &holdLast{w: w}
		to = held
	}
	// Recorded first, then passed on: a Recording taken at any moment
	// holds every message the client has read.
	_, copyErr := io.Copy(io.MultiWriter(rd, to), resp.Body)
	if held != nil {
		_, _ = w.Write(held.tail) // with no flush after it: sent with END_STREAM
	}
	// Trailers come after the body; a trailers-only answer has its status
	// among the headers, already passed on.
	for k, vs := range resp.Trailer {
		w.Header()[http.TrailerPrefix+k] = append([]string(nil), vs...)
	}
	if sl == nil {
		return
	}
	if rd.plain {
		if json.Valid(rd.buf) && len(bytes.TrimSpace(rd.buf)) > 0 {
			x.Response = compact(rd.buf)
		} else {
			x.Body = string(rd.buf)
		}
		return
	}
	status := resp.Trailer
	if status.Get("Grpc-Status") == "" {
		status = resp.Header
	}
	switch {
	case copyErr != nil && (r.Context().Err() != nil || fw.err != nil):
		x.End = p.clientGone()
	case copyErr != nil || status.Get("Grpc-Status") == "":
		// Cut before its status: nothing says how the call ended.
		x.End = EndError
	default:
		x.GRPCStatus, _ = strconv.Atoi(status.Get("Grpc-Status"))
		if m, err := url.PathUnescape(status.Get("Grpc-Message")); err == nil {
			x.GRPCMessage = m
		} else {
			x.GRPCMessage = status.Get("Grpc-Message")
		}
		x.GRPCDetails = status.Get("Grpc-Status-Details-Bin")
		if streaming {
			x.End = EndEOF
		}
	}
	if len(rd.buf) > 0 && x.End != EndClientGone && x.End != EndOpen {
		x.End, x.Tail = EndTruncated, tailOf(rd.buf)
	}
	if streaming || x.End != "" {
		x.EndAfter = Duration(time.Since(begin))
	}
}

// tailOf is the start of a cut message, at most 512 bytes, as text.
func tailOf(b []byte) string {
	return string(b[:min(len(b), 512)])
}

// grpcReader records the messages of a gRPC answer as they pass: the
// first as the Response of a unary call, each as an event of a
// server-streaming one.
type grpcReader struct {
	md        protoreflect.MethodDescriptor
	x         *Exchange
	begin     time.Time
	streaming bool
	// carried publishes the events recorded so far (Proxy.carried).
	carried func([]Event)
	// answered publishes a unary call's answer message once recorded, as
	// Proxy.streaming publishes a stream: the client may read it long
	// before the status, which comes after the trailers, and a Recording
	// taken meanwhile then has the call answered, ending EndOpen with no
	// status, as a stream still open does, not Unanswered.
	answered func()
	// plain keeps an answer that is not gRPC's whole in buf, up to limit.
	plain bool
	limit int64
	buf   []byte
}

func (g *grpcReader) Write(b []byte) (int, error) {
	if g.plain {
		g.buf = append(g.buf, b[:min(int64(len(b)), max(0, g.limit-int64(len(g.buf))))]...)
		return len(b), nil
	}
	if g.md == nil {
		return len(b), nil
	}
	g.buf = append(g.buf, b...)
	for {
		_, msg, rest, ok := a2apb.NextMessage(g.buf)
		if !ok {
			return len(b), nil
		}
		j, err := GRPCToJSON(g.md.Output(), msg)
		if err != nil {
			j = nil
		}
		switch {
		case g.streaming:
			ev := Event{After: Duration(time.Since(g.begin)), Data: j}
			if j == nil {
				ev.Text = string(msg)
			}
			g.x.Events = append(g.x.Events, ev)
			g.carried(g.x.Events)
		case j != nil:
			g.x.Response = j
		default:
			g.x.Body = string(msg)
		}
		if !g.streaming {
			g.answered()
		}
		g.buf = append(g.buf[:0], rest...)
	}
}
