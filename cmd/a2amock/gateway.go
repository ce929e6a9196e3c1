package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/a2amock/a2amock/gateway"
	"github.com/a2amock/a2amock/internal/httpserve"
	"github.com/a2amock/a2amock/scenario"
	"github.com/a2amock/a2amock/server"
)

// controlPath is the prefix of the mock's control API, which the gateway
// front passes through untouched.
const controlPath = "/_a2amock"

// gatewayRequested reports whether serve runs behind the gateway: the
// --gateway flag (or A2AMOCK_GATEWAY) when given, else the scenario file's
// server.gateway. A file that does not load is left for scenarioServeConfig
// to report with its positions.
func gatewayRequested(flagValue, flagGiven bool, scenarioFile string) bool {
	if flagGiven || scenarioFile == "" {
		return flagValue
	}
	s, err := scenario.Load(scenarioFile)
	return err == nil && s.Server.Gateway
}

// runGateway is runServer with the id-rewriting gateway in front: the mock
// listens on a loopback port of its own and the gateway serves on addr, so
// every client of addr sees the gateway's task ids and correlation ids.
func runGateway(ctx context.Context, cfg server.Config, addr string, names []string, stdout, stderr io.Writer, logger *slog.Logger, ready chan<- string) int {
	if cfg.GRPC {
		// The gateway rewrites JSON bodies over HTTP/1.1; a card behind it
		// would declare a gRPC interface no client could reach.
		fmt.Fprintln(stderr, "a2amock serve: the gateway serves JSON-RPC and HTTP+JSON only: use --grpc (or a scenario's server.grpc) without --gateway")
		return 2
	}
	cfg.ControlFrontSecret = newFrontSecret()
	srv, err := server.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "a2amock serve: %v\n", err)
		return 2
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		fmt.Fprintf(stderr, "a2amock serve: %v\n", err)
		return 1
	}
	defer srv.Close()
	front, err := newGatewayFront(srv.URL(), cfg.Seed, cfg.ControlToken, cfg.ControlFrontSecret)
	if err != nil {
		fmt.Fprintf(stderr, "a2amock serve: %v\n", err)
		return 1
	}
	defer front.proxyTransport.CloseIdleConnections()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "a2amock serve: listen %s: %v\n", addr, err)
		return 1
	}
	hs := httpserve.New(front, httpserve.Timeouts{Read: cfg.ReadTimeout, Idle: cfg.IdleTimeout}, nil, logger)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	u := "http://" + httpserve.DialAddr(ln.Addr().String())
	logger.Debug("a2amock serving behind the gateway", "url", u, "mock", srv.URL(), "agents", strings.Join(names, ","),
		"seed", cfg.Seed, "card", u+"/.well-known/agent-card.json")
	fmt.Fprintf(stdout, "a2amock: serving %d agent(s) behind the id-rewriting gateway at %s (card: %s/.well-known/agent-card.json)\n", len(names), u, u)
	if ready != nil {
		ready <- u
	}
	select {
	case <-ctx.Done():
	case err := <-served:
		logger.Error("gateway stopped", "err", err)
		return 1
	}
	logger.Info("a2amock shutting down: ending open streams")
	// The mock goes first: closing it ends the streams the gateway is
	// relaying, so the gateway's handlers return and its Shutdown does not
	// wait on them.
	code := 0
	if err := srv.Close(); err != nil {
		logger.Error("shutdown", "err", err)
		code = 1
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		logger.Error("gateway shutdown", "err", err)
		code = 1
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		logger.Error("gateway", "err", err)
		code = 1
	}
	return code
}

// newFrontSecret returns a random per-process secret by which the front
// vouches for the control calls it forwards (server.ControlFrontHeader).
func newFrontSecret() string {
	return rand.Text()
}

// gatewayFront routes the control API straight to the mock, unchanged (its
// journal must show the ids the mock used, and a rewritten journal would
// hide the very difference the gateway is there to create), and everything
// else through the gateway.
//
// The mock answers only the control calls that carry the front's secret:
// the gateway rewrites any path segment that is a task alias, and a v0.1
// client chooses its own task ids, so a task named "_a2amock" would
// otherwise turn /<alias>/journal into a control call that reaches the mock
// from loopback, past the front's checks.
type gatewayFront struct {
	gw             *gateway.Gateway
	control        *httputil.ReverseProxy
	proxyTransport *http.Transport
	controlToken   string
	secret         string
}

func newGatewayFront(upstream string, seed uint64, controlToken, secret string) (*gatewayFront, error) {
	gw, err := gateway.New(gateway.Config{Upstream: upstream, Seed: seed})
	if err != nil {
		return nil, err
	}
	target, err := url.Parse(upstream)
	if err != nil {
		return nil, err
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 4, IdleConnTimeout: 30 * time.Second}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			// The mock compares Origin with Host for state-changing calls:
			// it must see the Host the client addressed.
			pr.Out.Host = pr.In.Host
			pr.Out.Header.Set(server.ControlFrontHeader, secret)
		},
		Transport:     tr,
		FlushInterval: -1,
	}
	return &gatewayFront{gw: gw, control: rp, proxyTransport: tr, controlToken: controlToken, secret: secret}, nil
}

// ServeHTTP implements http.Handler.
func (f *gatewayFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != controlPath && !strings.HasPrefix(r.URL.Path, controlPath+"/") {
		r.Header.Del(server.ControlFrontHeader)
		f.gw.ServeHTTP(w, r)
		return
	}
	// The mock sees every request come from this process, on loopback, so
	// its "loopback clients only" rule has to be applied here, to the real
	// client; with a token the mock checks the forwarded Authorization
	// itself.
	if f.controlToken == "" && !httpserve.LoopbackRemote(r) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
			"code": http.StatusForbidden, "status": "PERMISSION_DENIED", "message": httpserve.LoopbackOnlyMessage(r)}})
		return
	}
	f.control.ServeHTTP(w, r)
}
