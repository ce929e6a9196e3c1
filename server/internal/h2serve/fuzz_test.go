package h2serve

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// FuzzConn feeds arbitrary bytes after the client preface to a
// connection: whatever arrives, the server must not panic, and once the
// client goes away the connection must end and every handler return.
func FuzzConn(f *testing.F) {
	for _, seed := range fuzzSeeds() {
		f.Add(seed)
	}
	f.Add([]byte("GET / HTTP/1.1\r\n\r\n"))
	f.Add([]byte{0, 0, 0, 4, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		srv := &http.Server{ReadTimeout: time.Second, IdleTimeout: time.Second}
		s := install(srv)
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(http.TrailerPrefix+"X-End", "1")
			_, _ = io.Copy(w, r.Body)
		})
		client, server := net.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.serveConn(server, h, true)
		}()
		drained := make(chan struct{})
		go func() {
			defer close(drained)
			_, _ = io.Copy(io.Discard, client)
		}()
		_ = client.SetWriteDeadline(time.Now().Add(5 * time.Second))
		_, _ = client.Write(in)
		_ = client.Close()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("the connection did not end after the client closed it")
		}
		<-drained
	})
}

// fuzzSeeds are well-formed conversations: requests with and without
// bodies, trailers, PING, SETTINGS, WINDOW_UPDATE, RST_STREAM, GOAWAY.
func fuzzSeeds() [][]byte {
	var seeds [][]byte
	build := func(write func(fr *http2.Framer, hdr func(id uint32, end bool, kv ...string))) {
		var buf, hb bytes.Buffer
		fr := http2.NewFramer(&buf, nil)
		enc := hpack.NewEncoder(&hb)
		hdr := func(id uint32, end bool, kv ...string) {
			hb.Reset()
			for i := 0; i < len(kv); i += 2 {
				_ = enc.WriteField(hpack.HeaderField{Name: kv[i], Value: kv[i+1]})
			}
			_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: hb.Bytes(), EndStream: end, EndHeaders: true})
		}
		_ = fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1 << 16})
		write(fr, hdr)
		seeds = append(seeds, buf.Bytes())
	}
	build(func(fr *http2.Framer, hdr func(uint32, bool, ...string)) {
		hdr(1, true, request("GET", "/")...)
	})
	build(func(fr *http2.Framer, hdr func(uint32, bool, ...string)) {
		hdr(1, false, append(request("POST", "/x?y=1"), "content-type", "application/grpc", "content-length", "4")...)
		_ = fr.WriteData(1, true, []byte("body"))
		hdr(3, false, request("POST", "/")...)
		_ = fr.WriteData(3, false, []byte("part"))
		hdr(3, true, "x-trailer", "t")
	})
	build(func(fr *http2.Framer, hdr func(uint32, bool, ...string)) {
		_ = fr.WritePing(false, [8]byte{1})
		_ = fr.WriteWindowUpdate(0, 1000)
		hdr(1, false, request("POST", "/")...)
		_ = fr.WriteRSTStream(1, http2.ErrCodeCancel)
		_ = fr.WriteGoAway(1, http2.ErrCodeNo, nil)
	})
	return seeds
}
