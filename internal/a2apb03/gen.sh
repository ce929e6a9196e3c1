#!/bin/sh
# gen.sh regenerates the Go code of the A2A v0.3.0 proto (a2a.v1) for the
# mock's v0.3 gRPC binding, as internal/a2apb/gen.sh does for v1.0. The
# proto's google.api annotations (HTTP transcoding rules, method
# signatures, field behaviors) change no message or service, so they are
# stripped here instead of vendoring googleapis: the imports of
# google/api/*.proto, every "option (google.api.…) = …;" (one line or a
# braced block) and every "(google.api.field_behavior) = …" field option
# (dropping the brackets when it was the only one: SendMessageRequest's
# request keeps its json_name). The stripped copy is a2a-v0.3.0.gen.proto;
# the go_package is rewritten to this package.
#
# Two fields of the later v0.3 protos (a2a-go v0.3.15's and a2a-python's
# copies, which the SDKs' v0.3 gRPC clients are built from) are added:
# Part.metadata = 4 and FilePart.name = 4. The 0.3.0 proto lacks them
# although v0.3's JSON has them; the v0.3 HTTP+JSON codec reads and writes
# them, and without them here a gRPC client's part metadata and file names
# would be dropped as unknown fields. Both numbers are free in 0.3.0.
#
# The proto package is renamed a2amock.internal.a2a.v03: the Go protobuf
# runtime keeps one global registry of full names and panics when two
# packages register a2a.v1.Task, which a program linking the mock and
# a2a-go's v0.3 gRPC client (a2a-go v0.3.15's a2apb, which a2a-go v2's
# a2agrpc/v0 uses; the interop tests link it) would do. The binary wire
# format has no message names (this proto has no Any), so only the service
# name matters on the wire: it is set back to a2a.v1.A2AService in the
# generated client and service descriptor, and the server routes
# /a2a.v1.A2AService/{Method} itself.
#
# Tools (pinned): protoc 3.21 (Debian protobuf-compiler),
#   go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.11
#   go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.1
set -eu
cd "$(dirname "$0")"
src=../../../shared/a2a/schema/a2a-v0.3.0.proto
[ -f "$src" ] || src=${A2A_PROTO:?set A2A_PROTO to a2a-v0.3.0.proto}
awk '
  /^import "google\/api\// { next }
  skipping {
    n = gsub(/\{/, "{"); m = gsub(/\}/, "}"); depth += n - m
    if (depth <= 0 && $0 ~ /;[[:space:]]*$/) skipping = 0
    next
  }
  /^[[:space:]]*option \(google\.api\./ {
    n = gsub(/\{/, "{"); m = gsub(/\}/, "}"); depth = n - m
    if (depth > 0 || $0 !~ /;[[:space:]]*$/) skipping = 1
    next
  }
  {
    gsub(/\(google\.api\.field_behavior\) = [A-Z_]+, */, "")
    gsub(/ *\[\(google\.api\.field_behavior\) = [A-Z_]+\]/, "")
    # A field option alone on its continuation line, now empty.
    if ($0 ~ /^[[:space:]]*;[[:space:]]*$/) { sub(/[[:space:]]*$/, "", prev); prev = prev ";"; next }
    if (started) print prev
    prev = $0; started = 1
    if ($0 ~ /^message /) msg = $2
    if (msg == "Part" && $0 ~ /^  }$/) { print prev; prev = "  google.protobuf.Struct metadata = 4;" }
    if (msg == "FilePart" && $0 ~ /^  string mime_type = 3;$/) { print prev; prev = "  string name = 4;" }
  }
  END { if (started) print prev }
' "$src" | sed -e 's#^option go_package = .*#option go_package = "github.com/a2amock/a2amock/internal/a2apb03";#' \
  -e 's#^package a2a\.v1;#package a2amock.internal.a2a.v03;#' > a2a-v0.3.0.gen.proto
protoc -I. --go_out=. --go_opt=paths=source_relative \
  --go-grpc_out=. --go-grpc_opt=paths=source_relative a2a-v0.3.0.gen.proto
sed -i 's#a2amock\.internal\.a2a\.v03\.A2AService#a2a.v1.A2AService#g' a2a-v0.3.0.gen_grpc.pb.go
