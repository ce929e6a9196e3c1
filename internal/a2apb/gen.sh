#!/bin/sh
# gen.sh regenerates the Go code of the A2A v1.0 proto (lf.a2a.v1) for the
# mock's gRPC binding. The proto's google.api annotations (HTTP transcoding
# rules, method signatures, field behaviors) only document the HTTP+JSON
# binding and client generation; they change no message or service, so they
# are stripped here instead of vendoring googleapis: the imports of
# google/api/*.proto, every "option (google.api.…) = …;" (one line or a
# braced block) and every "[(google.api.field_behavior) = …]". The stripped
# copy is a2a-v1.0.gen.proto; the go_package is rewritten to this package.
#
# The proto package is renamed a2amock.internal.lf.a2a.v1: the Go protobuf
# runtime keeps one global registry of full names and panics when two
# packages register lf.a2a.v1.Role, which a program linking the mock and
# a2a-go v2's gRPC client (the interop tests, any user's test) would do.
# The binary wire format has no message names (this proto has no Any), so
# only the service name matters on the wire: it is set back to
# lf.a2a.v1.A2AService in the generated client and service descriptor, and
# the server routes /lf.a2a.v1.A2AService/{Method} itself.
#
# Tools (pinned): protoc 3.21 (Debian protobuf-compiler),
#   go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.11
#   go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.1
set -eu
cd "$(dirname "$0")"
src=../../../shared/a2a/schema/a2a-v1.0.proto
[ -f "$src" ] || src=${A2A_PROTO:?set A2A_PROTO to a2a-v1.0.proto}
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
  { gsub(/ *\[\(google\.api\.field_behavior\) = [A-Z_]+\]/, ""); print }
' "$src" | sed -e 's#^option go_package = .*#option go_package = "github.com/a2amock/a2amock/internal/a2apb";#' \
  -e 's#^package lf\.a2a\.v1;#package a2amock.internal.lf.a2a.v1;#' > a2a-v1.0.gen.proto
protoc -I. --go_out=. --go_opt=paths=source_relative \
  --go-grpc_out=. --go-grpc_opt=paths=source_relative a2a-v1.0.gen.proto
sed -i 's#a2amock\.internal\.lf\.a2a\.v1\.A2AService#lf.a2a.v1.A2AService#g' a2a-v1.0.gen_grpc.pb.go
