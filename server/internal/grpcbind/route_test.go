package grpcbind

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/a2amock/a2amock/internal/a2apb"
	"github.com/a2amock/a2amock/wire"
)

// grpcCall is a GetTask call at the root whose body is read from body;
// declared gives it a Content-Length (net/http's, for a body of n bytes),
// else none, as a gRPC client over HTTP/2 sends it.
func grpcCall(body io.Reader, n int, declared bool) *http.Request {
	r := httptest.NewRequest(http.MethodPost, a2apb.ServicePath+"GetTask", body)
	r.ProtoMajor, r.ProtoMinor = 2, 0
	r.Header.Set("Content-Type", "application/grpc")
	r.ContentLength = -1
	if declared {
		r.ContentLength = int64(n)
	}
	return r
}

// TestPeekBodyTrustsNoPrefix: peekBody sizes its buffer by the body's
// gRPC prefix, which the client writes; whatever the prefix says (more
// than the limit, more than the body holds, less than it holds), it reads
// the same bytes and answers the same as it did with
// io.ReadAll(io.LimitReader(body, limit+1)) (the oracle here), the call is
// routed or refused the same, and r.Body still reads the whole body.
func TestPeekBodyTrustsNoPrefix(t *testing.T) {
	t.Parallel()
	const limit = 64
	msg, err := proto.Marshal(&a2apb.GetTaskRequest{Id: "t1"})
	require.NoError(t, err)
	framed := func(claim int, payload []byte) []byte {
		return append(binary.BigEndian.AppendUint32([]byte{0}, uint32(claim)), payload...)
	}
	long := bytes.Repeat([]byte{'x'}, limit)
	one := a2apb.AppendMessage(nil, msg)
	cases := map[string][]byte{
		"honest":                              one,
		"honest, over the limit":              a2apb.AppendMessage(nil, long),
		"honest, at the limit":                a2apb.AppendMessage(nil, long[:limit-5]),
		"claims more than the limit":          framed(1<<31, msg),
		"claims more than the limit, over it": framed(1<<31, long),
		"claims more than the limit, at it":   framed(limit, long[:limit-5]),
		"claims more than the body holds":     framed(len(msg)+20, msg),
		"claims less than the body holds":     framed(len(msg)-3, msg),
		"claims nothing":                      framed(0, msg),
		"two messages":                        append(bytes.Clone(one), one...),
		"two messages, over the limit":        append(a2apb.AppendMessage(nil, long[:limit-20]), one...),
		"compressed":                          append([]byte{1}, one[1:]...),
		"shorter than a prefix":               {0, 0, 0},
		"empty":                               {},
	}
	readers := map[string]func([]byte) io.Reader{
		"whole":      func(b []byte) io.Reader { return bytes.NewReader(b) },
		"bytewise":   func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
		"eof-w-data": func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) },
	}
	var b Binding
	for name, body := range cases {
		for rname, reader := range readers {
			for _, declared := range []bool{false, true} {
				want, werr := io.ReadAll(io.LimitReader(bytes.NewReader(body), limit+1))
				require.NoError(t, werr)
				r := grpcCall(reader(body), len(body), declared)
				got, e := peekBody(r, limit)
				if len(want) > limit {
					if assert.NotNil(t, e, "%s, %s, declared %v: not refused", name, rname, declared) && !declared {
						assert.Equal(t, "request body exceeds the limit of 64 bytes", e.Message)
					}
				} else {
					assert.Nil(t, e, "%s, %s, declared %v", name, rname, declared)
					assert.Equal(t, want, got, "%s, %s, declared %v", name, rname, declared)
				}
				rest, err := io.ReadAll(r.Body)
				require.NoError(t, err)
				assert.Equal(t, body, rest, "%s, %s, declared %v: r.Body does not read the whole body", name, rname, declared)

				oracle := func() ([]byte, *wire.Error) {
					if len(want) > limit {
						return nil, e
					}
					return want, nil
				}
				wc, wno := b.route(grpcCall(nil, 0, false), nil, "", a2apb.ServicePath+"GetTask", oracle)
				gr := grpcCall(reader(body), len(body), declared)
				gc, gno := b.route(gr, nil, "", a2apb.ServicePath+"GetTask", func() ([]byte, *wire.Error) { return peekBody(gr, limit) })
				assert.Equal(t, wno, gno, "%s, %s, declared %v: refused otherwise", name, rname, declared)
				assert.Equal(t, wc.method, gc.method, "%s, %s, declared %v", name, rname, declared)
			}
		}
	}
	// The buffer a prefix sizes is no larger than the limit allows, nor
	// than a declared length.
	lying := cases["claims more than the limit"]
	read, err := readCall(bytes.NewReader(lying), limit+1, -1)
	require.NoError(t, err)
	assert.Equal(t, lying, read)
	assert.LessOrEqual(t, cap(read), limit+1)
	read, err = readCall(bytes.NewReader(lying), limit+1, int64(len(lying)))
	require.NoError(t, err)
	assert.Equal(t, len(lying), cap(read))
}

// TestPeekBodyReadError: a body whose read fails is refused as before,
// and what was read of it stays in front of the rest.
func TestPeekBodyReadError(t *testing.T) {
	t.Parallel()
	body := a2apb.AppendMessage(nil, bytes.Repeat([]byte{'x'}, 40))
	for _, cut := range []int{0, 3, 5, 20} {
		r := grpcCall(io.MultiReader(bytes.NewReader(body[:cut]), iotest.ErrReader(errors.New("reset"))), 0, false)
		_, e := peekBody(r, 64)
		require.NotNil(t, e, "cut at %d: not refused", cut)
		assert.Equal(t, "request body exceeds the limit of 64 bytes", e.Message)
		read, err := io.ReadAll(r.Body)
		assert.Error(t, err)
		assert.Equal(t, body[:cut], read, "cut at %d", cut)
	}
}

// BenchmarkPeekBody: reading a call of one 1 MiB message, with no
// declared length (a gRPC client's over HTTP/2); its B/op is the buffer's.
func BenchmarkPeekBody(b *testing.B) {
	body := a2apb.AppendMessage(nil, bytes.Repeat([]byte{'x'}, 1<<20))
	b.ReportAllocs()
	for b.Loop() {
		if _, e := peekBody(grpcCall(bytes.NewReader(body), len(body), false), 2<<20); e != nil {
			b.Fatal(e.Message)
		}
	}
}
