// Package ociimage assembles the a2amock container image without a Docker
// engine: the same image the Dockerfile describes (a static binary at
// /a2amock on an empty base, non-root user 65532, port 8080, the
// healthcheck subcommand as HEALTHCHECK), written as a docker-loadable
// image tarball ("docker load -i", "podman load", crane and skopeo read it).
//
// The CI machines that build a2amock run no Docker daemon, so `make image`
// cannot call `docker build`. The tarball, manifest and config formats are
// delegated to github.com/google/go-containerregistry rather than written by
// hand: digests, diff ids, the manifest.json of the docker tarball and the
// config's history must agree exactly, and that library is what crane and
// ko use to get them right.
package ociimage

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/google/go-containerregistry/pkg/name"
)

// The image settings, kept equal to the Dockerfile's.
const (
	// BinaryPath is where the binary lives in the image.
	BinaryPath = "/a2amock"
	// User is the numeric non-root user and group (distroless "nonroot").
	User = "65532:65532"
	// Port is the exposed port, as ExposedPorts spells it.
	Port = "8080/tcp"
)

// Entrypoint, Env, Cmd and Healthcheck are the image's run configuration.
// The image listens on every interface because inside a container loopback
// is unreachable from the host or from other containers; the binary's own
// default stays 127.0.0.1:8080. The address is set through A2AMOCK_ADDR
// rather than in Cmd, so that arguments replacing the Cmd (serve
// --scenario ...) keep it, and the healthcheck, which reads the same
// variable, checks the port a user moves the server to.
var (
	Entrypoint  = []string{BinaryPath}
	Env         = []string{"A2AMOCK_ADDR=0.0.0.0:8080"}
	Cmd         = []string{"serve"}
	Healthcheck = []string{"CMD", BinaryPath, "healthcheck"}
)

// Options configure Build.
type Options struct {
	// Binary is the path of a linux static a2amock binary.
	Binary string
	// Tag names the image in the tarball, e.g. "a2amock:dev".
	Tag string
	// Created is the image's creation time; the zero value keeps the
	// epoch, so the same binary always gives the same image digest.
	Created time.Time
	// Arch is the GOARCH the binary was built for (amd64 when empty).
	Arch string
}

// Image builds the image from opts.
func Image(opts Options) (v1.Image, error) {
	bin, err := os.ReadFile(opts.Binary)
	if err != nil {
		return nil, fmt.Errorf("read binary: %w", err)
	}
	layerTar, err := binaryLayer(bin, opts.Created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	})
	if err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	img, err := mutate.Append(empty.Image, mutate.Addendum{
		Layer: layer,
		History: v1.History{
			Created:   v1.Time{Time: opts.Created},
			CreatedBy: "ociimage: COPY a2amock " + BinaryPath,
			Comment:   "static a2amock binary",
		},
	})
	if err != nil {
		return nil, fmt.Errorf("append layer: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	cf = cf.DeepCopy()
	arch := opts.Arch
	if arch == "" {
		arch = "amd64"
	}
	cf.OS, cf.Architecture = "linux", arch
	cf.Created = v1.Time{Time: opts.Created}
	cf.Config.Entrypoint = Entrypoint
	cf.Config.Env = append(cf.Config.Env, Env...)
	cf.Config.Cmd = Cmd
	cf.Config.User = User
	cf.Config.WorkingDir = "/"
	cf.Config.ExposedPorts = map[string]struct{}{Port: {}}
	cf.Config.Healthcheck = &v1.HealthConfig{
		Test:        Healthcheck,
		Interval:    10 * time.Second,
		Timeout:     3 * time.Second,
		StartPeriod: 2 * time.Second,
		Retries:     3,
	}
	cf.Config.Labels = map[string]string{
		"org.opencontainers.image.title":  "a2amock",
		"org.opencontainers.image.source": "https://github.com/a2amock/a2amock",
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("set config: %w", err)
	}
	return img, nil
}

// Build builds the image and writes it as a docker-loadable tarball to w.
func Build(w io.Writer, opts Options) error {
	if opts.Tag == "" {
		return errors.New("ociimage: a tag is required")
	}
	tag, err := name.NewTag(opts.Tag)
	if err != nil {
		return fmt.Errorf("tag %q: %w", opts.Tag, err)
	}
	img, err := Image(opts)
	if err != nil {
		return err
	}
	if err := tarball.Write(tag, img, w); err != nil {
		return fmt.Errorf("write tarball: %w", err)
	}
	return nil
}

// binaryLayer is an uncompressed layer tar holding the binary at
// BinaryPath, owned by root and executable by everyone, so the non-root
// user runs it but cannot replace it.
func binaryLayer(bin []byte, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	hdr := &tar.Header{
		Typeflag: tar.TypeReg,
		Name:     BinaryPath[1:],
		Mode:     0o755,
		Size:     int64(len(bin)),
		ModTime:  mtime,
		Format:   tar.FormatPAX,
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return nil, fmt.Errorf("layer header: %w", err)
	}
	if _, err := tw.Write(bin); err != nil {
		return nil, fmt.Errorf("layer body: %w", err)
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("layer close: %w", err)
	}
	return buf.Bytes(), nil
}

// CompileBinary cross-compiles ./cmd/a2amock of the module in moduleDir into
// out as a static linux binary for arch, as the Dockerfile's build stage
// does.
func CompileBinary(moduleDir, out, arch string) error {
	if arch == "" {
		arch = "amd64"
	}
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, "./cmd/a2amock")
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/a2amock: %w\n%s", err, b)
	}
	return nil
}

// BuildFromSource compiles the binary and writes the image tarball to out,
// creating out's directory. opts.Binary is ignored.
func BuildFromSource(moduleDir, out string, opts Options) error {
	tmp, err := os.MkdirTemp("", "a2amock-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	opts.Binary = filepath.Join(tmp, "a2amock")
	if err := CompileBinary(moduleDir, opts.Binary, opts.Arch); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := Build(f, opts); err != nil {
		f.Close()
		os.Remove(out)
		return err
	}
	return f.Close()
}
