package ociimage

import (
	"archive/tar"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestImageTarball builds the image the way `make image` does (compiling
// the binary once), reads the tarball back with go-containerregistry's
// reader, checks the run configuration, then runs the binary taken out of
// the layer and fetches a card from it.
func TestImageTarball(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "dist", "a2amock-image.tar")
	require.NoError(t, BuildFromSource("../..", out, Options{Tag: "a2amock:test", Arch: runtime.GOARCH}))

	tag, err := name.NewTag("a2amock:test")
	require.NoError(t, err)
	img, err := tarball.ImageFromPath(out, &tag)
	require.NoError(t, err)
	cf, err := img.ConfigFile()
	require.NoError(t, err)
	assert.Equal(t, "linux", cf.OS)
	assert.Equal(t, runtime.GOARCH, cf.Architecture)
	assert.Equal(t, []string{"/a2amock"}, cf.Config.Entrypoint)
	assert.Equal(t, []string{"serve", "--addr", "0.0.0.0:8080"}, cf.Config.Cmd)
	assert.Equal(t, "65532:65532", cf.Config.User)
	assert.Equal(t, map[string]struct{}{"8080/tcp": {}}, cf.Config.ExposedPorts)
	require.NotNil(t, cf.Config.Healthcheck)
	assert.Equal(t, []string{"CMD", "/a2amock", "healthcheck"}, cf.Config.Healthcheck.Test)

	layers, err := img.Layers()
	require.NoError(t, err)
	require.Len(t, layers, 1, "scratch base plus one binary layer")
	rc, err := layers[0].Uncompressed()
	require.NoError(t, err)
	defer rc.Close()
	bin := filepath.Join(dir, "a2amock")
	tr := tar.NewReader(rc)
	var found bool
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if hdr.Name != "a2amock" {
			continue
		}
		found = true
		assert.Equal(t, int64(0o755), hdr.Mode&0o777)
		assert.Equal(t, 0, hdr.Uid, "root-owned: the non-root user cannot replace it")
		f, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
		require.NoError(t, err)
		_, err = io.Copy(f, tr)
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	require.True(t, found, "the layer holds /a2amock")

	// The binary prints its URL but a child's stdout is awkward to wait on;
	// a port picked here and handed over is simpler. Another process could
	// take it in between; that would fail the test loudly, not silently.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	base := "http://127.0.0.1:" + strconv.Itoa(port)

	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:"+strconv.Itoa(port), "--step-delay", "0")
	require.NoError(t, cmd.Start())
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-waited:
			assert.NoError(t, err, "a2amock exits 0 on SIGTERM")
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-waited
			t.Error("a2amock did not stop within 10s of SIGTERM")
		}
	}()

	client := &http.Client{Timeout: 2 * time.Second}
	defer client.CloseIdleConnections()
	var card []byte
	require.Eventually(t, func() bool {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, base+"/.well-known/agent-card.json", nil)
		resp, err := client.Do(req)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		card, _ = io.ReadAll(resp.Body)
		return resp.StatusCode == http.StatusOK
	}, 10*time.Second, 20*time.Millisecond, "the binary from the image serves a card")
	assert.Contains(t, string(card), `"supportedInterfaces"`)
	assert.Contains(t, string(card), base, "the card points at the address the binary listens on")

	// The HEALTHCHECK command works against it too.
	hc := exec.Command(bin, "healthcheck", "--url", base)
	outb, err := hc.CombinedOutput()
	require.NoError(t, err, string(outb))
	assert.Contains(t, string(outb), "healthy")
}

func TestBuildRejectsMissingBinaryAndTag(t *testing.T) {
	t.Parallel()
	err := Build(io.Discard, Options{Binary: filepath.Join(t.TempDir(), "nope"), Tag: "a2amock:x"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "read binary")
	require.Error(t, Build(io.Discard, Options{Binary: "x"}))
	require.Error(t, Build(io.Discard, Options{Binary: "x", Tag: "Not A Tag!"}))
}
