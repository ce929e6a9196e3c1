package testkit

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"testing"
	"time"
)

// StartTLS starts a mock like Start, serving HTTPS with a self-signed
// certificate for 127.0.0.1 and localhost made for this mock: its URL and
// every card's interface URLs are https. Mock.Client trusts the
// certificate; any other client must be given Mock.CertPool.
func StartTLS(t testing.TB, opts ...Option) *Mock {
	t.Helper()
	m, err := newMock(opts, true)
	if err != nil {
		t.Fatalf("testkit.StartTLS: %v", err)
		return nil
	}
	m.t = t
	t.Cleanup(m.Close)
	return m
}

// newMock builds and starts a mock, over TLS when tlsOn.
func newMock(opts []Option, tlsOn bool) (*Mock, error) {
	srv, reg, err := build(opts)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	m := &Mock{srv: srv, reg: reg}
	tr := &http.Transport{Proxy: nil, ForceAttemptHTTP2: false}
	if tlsOn {
		cert, pool, err := selfSigned()
		if err != nil {
			_ = ln.Close()
			return nil, err
		}
		srv.ServeTLS(ln, &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"}, MinVersion: tls.VersionTLS12})
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
		m.pool = pool
	} else {
		srv.Serve(ln)
	}
	m.URL = srv.URL()
	m.client = &http.Client{Transport: tr, Timeout: 30 * time.Second}
	return m, nil
}

// Client returns an *http.Client for the mock: it trusts a StartTLS mock's
// certificate, uses no proxy, and its idle connections are closed by Close.
func (m *Mock) Client() *http.Client { return m.client }

// CertPool returns the pool holding a StartTLS mock's certificate, for
// clients built elsewhere (nil for a plain HTTP mock).
func (m *Mock) CertPool() *x509.CertPool { return m.pool }

// selfSigned makes a P-256 certificate for 127.0.0.1, ::1 and localhost,
// valid for a day, and a pool that trusts it.
func selfSigned() (tls.Certificate, *x509.CertPool, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{Organization: []string{"a2amock testkit"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("testkit: certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool, nil
}
