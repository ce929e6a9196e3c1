package ociimage

import (
	"archive/tar"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
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
	assert.Equal(t, []string{"serve"}, cf.Config.Cmd)
	assert.Contains(t, cf.Config.Env, "A2AMOCK_ADDR=0.0.0.0:8080")
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

// TestDockerfileInStep: the Dockerfile and the image built without a Docker
// engine run the same way (entrypoint, environment, command, healthcheck,
// user, port).
func TestDockerfileInStep(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../Dockerfile")
	require.NoError(t, err)
	execForm := func(v []string) string {
		out, err := json.Marshal(v)
		require.NoError(t, err)
		return string(out)
	}
	df := string(raw)
	for _, line := range []string{
		"ENTRYPOINT " + execForm(Entrypoint),
		"CMD " + execForm(Cmd),
		"HEALTHCHECK --interval=10s --timeout=3s --start-period=2s --retries=3 CMD " + execForm(Healthcheck[1:]),
		"USER " + User,
		"EXPOSE " + strings.TrimSuffix(Port, "/tcp"),
	} {
		assert.Contains(t, df, "\n"+line+"\n", "the Dockerfile says %s", line)
	}
	for _, kv := range Env {
		assert.Contains(t, df, "\nENV "+kv+"\n")
	}
	assert.Equal(t, len(Env), strings.Count(df, "\nENV "), "no other ENV in the Dockerfile")
}
