package h2serve

import (
	"crypto/tls"
	"net/http"
	"slices"

	"golang.org/x/net/http2"
)

// Enable makes srv serve HTTP/1.1 and, with this package, HTTP/2: h2c
// with prior knowledge, as gRPC clients speak it on plain TCP, and h2 over
// TLS (when the TLS configuration offers it, see OfferH2). It must be
// called before srv serves; srv's handler, IdleTimeout, ReadTimeout,
// MaxHeaderBytes and ErrorLog apply.
func Enable(srv *http.Server) {
	srv.Protocols = new(http.Protocols)
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetHTTP2(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	install(srv)
}

// OfferH2 returns cfg offering h2 in ALPN after the protocols it lists
// (http/1.1 when it lists none): gRPC clients offer only h2 and fail the
// handshake without it, while a client offering http/1.1 too keeps it, as
// Go's TLS server picks by its own order (the mock's transport faults take
// over HTTP/1.1 connections). cfg is not modified.
func OfferH2(cfg *tls.Config) *tls.Config {
	if slices.Contains(cfg.NextProtos, http2.NextProtoTLS) {
		return cfg
	}
	cfg = cfg.Clone()
	if len(cfg.NextProtos) == 0 {
		cfg.NextProtos = []string{"http/1.1"}
	}
	cfg.NextProtos = append(slices.Clip(cfg.NextProtos), http2.NextProtoTLS)
	return cfg
}
