// Command perf measures a2amock beside its baselines, in one run on one
// machine, so the figures of docs/perf.md are ratios taken under the same
// load (make perf builds the binaries and runs every part):
//
//	perf compare -mock BIN -bare BIN -sdk BIN   wrk on JSON-RPC and HTTP+JSON SendMessage (-before BIN: an older mock in the same rounds),
//	                                            gRPC unary SendMessage with perf's own load
//	perf grpcload -target HOST:PORT             the gRPC load alone
//	perf streams -n 10000                       N concurrent SSE streams against one mock
//
// bare (./internal/perf/bare) is the least a server can do for a send;
// sdk (interop/perf/sdkserver) is a2a-go v2's server. Nothing here asserts a
// timing: it reports.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "compare":
		err = compare(os.Args[2:])
	case "grpcload":
		err = grpcLoadMain(os.Args[2:])
	case "streams":
		err = streams(os.Args[2:])
	case "streams-client":
		err = streamsClient(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "perf:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: perf compare|grpcload|streams [flags] (perf CMD -h for the flags)")
	os.Exit(2)
}
