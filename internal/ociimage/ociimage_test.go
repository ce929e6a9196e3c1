package ociimage

import (
	"archive/tar"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestImageTarball builds an image the way `make image` does (compiling
// ./cmd/a2amock of a module, then layering it) from a stand-in module whose
// command is a one-line program, so the test costs seconds on a cold cache
// instead of rebuilding a2amock and its standard library (minutes). It reads
// the tarball back with go-containerregistry's reader, checks the run
// configuration, then runs the binary taken out of the layer. The real
// binary's serve and healthcheck are tested in cmd/a2amock.
func TestImageTarball(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "dist", "a2amock-image.tar")
	require.NoError(t, BuildFromSource("testdata/tiny", out, Options{Tag: "a2amock:test", Arch: runtime.GOARCH}))

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

	outb, err := exec.Command(bin).CombinedOutput()
	require.NoError(t, err, string(outb))
	assert.Equal(t, "tiny a2amock stand-in\n", string(outb), "the layer's binary is the one compiled, and runs")
}

func TestBuildRejectsMissingBinaryAndTag(t *testing.T) {
	t.Parallel()
	err := Build(io.Discard, Options{Binary: filepath.Join(t.TempDir(), "nope"), Tag: "a2amock:x"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "read binary")
	require.Error(t, Build(io.Discard, Options{Binary: "x"}))
	require.Error(t, Build(io.Discard, Options{Binary: "x", Tag: "Not A Tag!"}))
}
