// Command buildimage builds the a2amock container image without a Docker
// engine: it cross-compiles ./cmd/a2amock for linux (static, CGO off) and
// writes a docker-loadable image tarball. `make image` runs it.
//
//	go run ./internal/ociimage/cmd/buildimage [-out dist/a2amock-image.tar] [-tag a2amock:dev] [-arch amd64]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/a2amock/a2amock/internal/ociimage"
)

func main() {
	out := flag.String("out", "dist/a2amock-image.tar", "where to write the image tarball")
	tag := flag.String("tag", "a2amock:dev", "image name and tag recorded in the tarball")
	arch := flag.String("arch", "amd64", "GOARCH of the image")
	pkgDir := flag.String("module", ".", "directory of the a2amock module")
	flag.Parse()
	if err := ociimage.BuildFromSource(*pkgDir, *out, ociimage.Options{Tag: *tag, Arch: *arch}); err != nil {
		fmt.Fprintln(os.Stderr, "buildimage:", err)
		os.Exit(1)
	}
	fmt.Println("wrote", *out, "("+*tag+"; load with: docker load -i", *out+")")
}
