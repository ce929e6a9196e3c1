# a2amock — make test is what CI runs (.ci/run).
GO ?= go
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
# fuzz: explore every fuzz target with random inputs; run it before landing a change to a
# parser, a codec or redaction. FUZZTIME, when set (e.g. 60s or 1000000x), is every fuzz
# target's budget; unset, each target runs a count of executions (about 5 s each on a
# loaded 2-core machine). A count, not a duration: with a duration Go 1.26's fuzz
# coordinator can fail a clean run with "context deadline exceeded" when its deadline races
# a worker (golang/go#75804, fixed in Go 1.27; it failed `make fuzz` once under load), and a
# count has no deadline to race.
FUZZTIME ?=

.PHONY: test ui-e2e ui-e2e-deps ui-screenshots unit fuzz interop interop-deps python-client python-client-deps js-client js-client-deps control-api-check conformance conformance-deps conformance-baselines scorecard bench lint generate serve

## test: everything CI checks: vet, race-enabled unit tests (every fuzz target's seeds and
## the inputs fuzzing found, under testdata/fuzz), interop with real SDKs, the conform suite
## against the reference clients. Not `fuzz`: its inputs are random, and a gate must give one
## answer for one commit (a 20,000-input run once failed CI on a bug in FuzzJSON itself, on a
## commit an earlier run had passed). `make fuzz` explores; what it finds is committed under
## the target's testdata/fuzz, so `unit` replays it from then on.
test: lint-fast unit interop conformance python-client js-client control-api-check ui-e2e

unit:
	$(GO) test -race -count=1 ./...

fuzz:
	$(GO) test -run='^$$' -fuzz='^FuzzDecodeRPC$$' -fuzztime=$(or $(FUZZTIME),40000x) ./wire
	$(GO) test -run='^$$' -fuzz='^FuzzJSONRPC$$' -fuzztime=$(or $(FUZZTIME),12000x) ./server
	$(GO) test -run='^$$' -fuzz='^FuzzGRPC$$' -fuzztime=$(or $(FUZZTIME),8000x) ./server
	$(GO) test -run='^$$' -fuzz='^FuzzREST$$' -fuzztime=$(or $(FUZZTIME),12000x) ./server
	$(GO) test -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=$(or $(FUZZTIME),4000x) ./scenario
	$(GO) test -run='^$$' -fuzz='^FuzzJCS$$' -fuzztime=$(or $(FUZZTIME),15000x) ./cardsig
	$(GO) test -run='^$$' -fuzz='^FuzzConn$$' -fuzztime=$(or $(FUZZTIME),30000x) ./server/internal/h2serve
	$(GO) test -run='^$$' -fuzz='^FuzzJSON$$' -fuzztime=$(or $(FUZZTIME),20000x) ./internal/redact
	$(GO) test -run='^$$' -fuzz='^FuzzParseBaseline$$' -fuzztime=$(or $(FUZZTIME),8000x) ./conform
	$(GO) test -run='^$$' -fuzz='^FuzzParseSuite$$' -fuzztime=$(or $(FUZZTIME),4000x) ./conform
	$(GO) test -run='^$$' -fuzz='^FuzzLoad$$' -fuzztime=$(or $(FUZZTIME),8000x) ./record
	$(GO) test -run='^$$' -fuzz='^FuzzCheck$$' -fuzztime=$(or $(FUZZTIME),20000x) ./ui

## interop-deps: @a2a-js/sdk from interop/js's lockfile, and the official Python a2a-sdk in
## interop/py/.venv from interop/py/requirements.txt (exact versions, --require-hashes)
INTEROP_PYVENV := interop/py/.venv

interop-deps:
	npm ci --prefix interop/js --no-audit --no-fund
	test -x $(INTEROP_PYVENV)/bin/python || python3 -m venv $(INTEROP_PYVENV)
	$(INTEROP_PYVENV)/bin/pip install --quiet --disable-pip-version-check --require-hashes -r interop/py/requirements.txt

interop: interop-deps
	cd interop && $(GO) test -race -count=1 ./...

## python-client: mypy --strict over the pytest plugin (clients/python), its tests against the real binary, and its example suite
## with the official a2a-sdk as the client under test, in a virtualenv from pinned versions
PYCLIENT := clients/python
PYCLIENT_VENV := $(PYCLIENT)/.venv

python-client-deps:
	$(GO) build -o bin/a2amock ./cmd/a2amock
	test -x $(PYCLIENT_VENV)/bin/python || python3 -m venv $(PYCLIENT_VENV)
	$(PYCLIENT_VENV)/bin/pip install --quiet --disable-pip-version-check -r $(PYCLIENT)/requirements-test.txt
	$(PYCLIENT_VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation ./$(PYCLIENT)

python-client: python-client-deps
	cd $(PYCLIENT) && .venv/bin/python -m mypy --strict --no-incremental src/a2amock
	cd $(PYCLIENT) && env -u A2AMOCK_URL A2AMOCK_BIN=$(CURDIR)/bin/a2amock .venv/bin/python -m pytest -q -p no:cacheprovider

## control-api-check: schemathesis (pinned, in the Python client's venv) against a running server:
## no 5xx, every answer conforms to docs/openapi.json, stateful runs over the API links; fixed seed
## (the journal's event stream is left out: it stays open until the client leaves)
SCHEMATHESIS_FLAGS ?= --checks all --exclude-checks positive_data_acceptance,unsupported_method --max-examples 50 --seed 1 --exclude-path /_a2amock/journal/stream

control-api-check: python-client-deps
	@bin/a2amock serve --addr 127.0.0.1:0 --log-level warn > bin/control-api-check.out 2>&1 & pid=$$!; \
	url=; for i in $$(seq 100); do url=$$(grep -o 'http://127\.0\.0\.1:[0-9]*' bin/control-api-check.out | head -1); [ -n "$$url" ] && break; sleep 0.1; done; \
	[ -n "$$url" ] || { echo "a2amock did not start"; cat bin/control-api-check.out; kill $$pid; exit 1; }; \
	(cd bin && ../$(PYCLIENT_VENV)/bin/schemathesis run $$url/_a2amock/openapi.json --url $$url $(SCHEMATHESIS_FLAGS)); rc=$$?; \
	kill $$pid; wait $$pid; exit $$rc

## js-client: the npm package a2amock (clients/js: TypeScript, built by npm ci's prepare as ESM and
## CommonJS) with Vitest (import) and Jest (require, CommonJS) against the real binary, @a2a-js/sdk as the client under test; installs from the committed lockfile
JSCLIENT := clients/js

js-client-deps:
	$(GO) build -o bin/a2amock ./cmd/a2amock
	npm ci --prefix $(JSCLIENT) --no-audit --no-fund

js-client: js-client-deps
	cd $(JSCLIENT) && env -u A2AMOCK_URL A2AMOCK_BIN=$(CURDIR)/bin/a2amock npx --no-install vitest run
	cd $(JSCLIENT) && env -u A2AMOCK_URL A2AMOCK_BIN=$(CURDIR)/bin/a2amock npx --no-install jest

## conformance: the default conform suite against the four reference clients
## (conformance/clients/), each judged against its committed expected-failures baseline;
## the Python client one scenario at a time (its interpreter's start-up is the first thing CPU contention delays)
CLIENTS := conformance/clients
PYVENV := $(CLIENTS)/python-a2a-sdk/.venv
CONFORM_CLIENT_go-robust := bin/go-robust
CONFORM_CLIENT_go-a2a := bin/go-a2a
CONFORM_CLIENT_python-a2a-sdk := $(PYVENV)/bin/python $(CLIENTS)/python-a2a-sdk/client.py
CONFORM_CLIENT_js-a2a-sdk := node $(CLIENTS)/js-a2a-sdk/client.mjs
CONFORM_REFS := go-robust go-a2a python-a2a-sdk js-a2a-sdk
CONFORM_FLAGS ?=
# CONFORM_FLAGS_GRPC: the gRPC runs' own (--update-baseline rewrites their gRPC-only layer)
CONFORM_FLAGS_GRPC ?=

conformance-deps:
	$(GO) build -o bin/a2amock ./cmd/a2amock
	$(GO) build -o bin/go-robust ./$(CLIENTS)/go-robust
	cd $(CLIENTS)/go-a2a && $(GO) build -o ../../../bin/go-a2a .
	test -x $(PYVENV)/bin/python || python3 -m venv $(PYVENV)
	$(PYVENV)/bin/pip install --quiet --disable-pip-version-check -r $(CLIENTS)/python-a2a-sdk/requirements.txt
	npm ci --prefix $(CLIENTS)/js-a2a-sdk --no-audit --no-fund

conformance: conformance-deps
	@for c in $(CONFORM_REFS); do \
	  echo "== a2amock conform: $$c"; \
	  case $$c in \
	    go-robust) cmd='$(CONFORM_CLIENT_go-robust)';; \
	    go-a2a) cmd='$(CONFORM_CLIENT_go-a2a)';; \
	    python-a2a-sdk) cmd='$(CONFORM_CLIENT_python-a2a-sdk)';; \
	    js-a2a-sdk) cmd='$(CONFORM_CLIENT_js-a2a-sdk)';; \
	  esac; \
	  extra=; [ $$c = python-a2a-sdk ] && extra='--parallel 1'; \
	  bin/a2amock conform --quiet $$extra --client "$$cmd" --expected-failures $(CLIENTS)/$$c/expected-failures.yaml \
	    --report-json bin/conform-$$c.json $(CONFORM_FLAGS) || exit 1; \
	done
	@echo "== a2amock conform --grpc: go-a2a -grpc (the same baseline over gRPC)"
	bin/a2amock conform --quiet --grpc --client '$(CONFORM_CLIENT_go-a2a) -grpc' \
	  --expected-failures $(CLIENTS)/go-a2a/expected-failures.yaml --report-json bin/conform-go-a2a-grpc.json
	@echo "== a2amock conform --grpc: python-a2a-sdk --grpc (its baseline, and what fails over gRPC only: a cut stream)"
	bin/a2amock conform --quiet --grpc --parallel 1 --client '$(CONFORM_CLIENT_python-a2a-sdk) --grpc' \
	  --expected-failures $(CLIENTS)/python-a2a-sdk/expected-failures.yaml \
	  --expected-failures $(CLIENTS)/python-a2a-sdk/expected-failures-grpc.yaml --report-json bin/conform-python-a2a-sdk-grpc.json $(CONFORM_FLAGS_GRPC)
	@echo "== a2amock conform --grpc: js-a2a-sdk --grpc (its baseline, and what fails over gRPC only: a cut stream)"
	bin/a2amock conform --quiet --grpc --client '$(CONFORM_CLIENT_js-a2a-sdk) --grpc' \
	  --expected-failures $(CLIENTS)/js-a2a-sdk/expected-failures.yaml \
	  --expected-failures $(CLIENTS)/js-a2a-sdk/expected-failures-grpc.yaml --report-json bin/conform-js-a2a-sdk-grpc.json $(CONFORM_FLAGS_GRPC)

## conformance-baselines: rewrite every reference client's baseline from a fresh run (review the diff: each entry needs a reason)
conformance-baselines: CONFORM_FLAGS = --update-baseline
conformance-baselines: CONFORM_FLAGS_GRPC = --update-baseline
conformance-baselines: conformance

## scorecard: run the reference clients, then rewrite the README's scorecard from their reports
scorecard: conformance
	$(GO) run ./conformance/scorecard -readme README.md $(foreach c,$(CONFORM_REFS),$(c)=bin/conform-$(c).json)

## bench: the benchmarks behind the figures in the issues' closing notes
bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./server ./testkit ./sse

## perf: a2amock beside a bare handler (internal/perf/bare) and a2a-go v2's server (interop/perf/sdkserver), in one run:
## wrk on JSON-RPC and HTTP+JSON SendMessage, perf's own gRPC load on unary SendMessage; figures in docs/perf.md
PERF_FLAGS ?= -d 10s -rounds 3
## PERF_BEFORE: an older a2amock binary measured in the same rounds (before/after)
PERF_BEFORE ?=
.PHONY: perf perf-streams
perf:
	@command -v wrk >/dev/null || { echo "make perf needs wrk (apt-get install -y wrk)"; exit 1; }
	$(GO) build -o bin/a2amock ./cmd/a2amock
	$(GO) build -o bin/perf ./internal/perf
	$(GO) build -o bin/perf-bare ./internal/perf/bare
	cd interop && $(GO) build -o ../bin/perf-sdkserver ./perf/sdkserver
	bin/perf compare -mock bin/a2amock -bare bin/perf-bare -sdk bin/perf-sdkserver $(if $(PERF_BEFORE),-before $(PERF_BEFORE)) $(PERF_FLAGS)

## perf-streams: 10,000 concurrent SSE streams against one in-process mock: memory and goroutines per open stream, every stream ends
PERF_STREAMS ?= 10000
perf-streams:
	$(GO) build -o bin/perf ./internal/perf
	bin/perf streams -n $(PERF_STREAMS)

## memcurve: the server's RSS over 200,000 never-terminal sends (the figure of issue 9's closing note; Linux)
.PHONY: memcurve
memcurve:
	$(GO) build -o $${TMPDIR:-/tmp}/a2amock-memcurve ./cmd/a2amock
	$(GO) run ./internal/memcurve -bin $${TMPDIR:-/tmp}/a2amock-memcurve -sends 200000 -- --behavior never-terminal

lint-fast:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	cd interop && $(GO) vet ./...
	cd conformance/clients/go-a2a && $(GO) vet ./...

## lint: gofmt, go vet and staticcheck (needs the module proxy for staticcheck)
lint: lint-fast
	$(GO) run $(STATICCHECK) ./...
	cd interop && $(GO) run $(STATICCHECK) ./...

generate:
	$(GO) generate ./...

serve:
	$(GO) run ./cmd/a2amock serve

## image: build the container image without a Docker engine: dist/a2amock-image.tar (docker load -i dist/a2amock-image.tar)
.PHONY: image
image:
	$(GO) run ./internal/ociimage/cmd/buildimage -out dist/a2amock-image.tar -tag a2amock:dev

## ui-e2e: the timeline page (/_a2amock/ui) and the static report (a2amock report) in a real headless
## browser: Debian's chromium (installed with apt when missing; never downloaded by npm) driven by
## playwright-core from ui/e2e's committed lockfile
UIE2E := ui/e2e

ui-e2e-deps:
	$(GO) build -o bin/a2amock ./cmd/a2amock
	@command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }
	PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix $(UIE2E) --no-audit --no-fund

ui-e2e: ui-e2e-deps
	cd $(UIE2E) && A2AMOCK_BIN=$(CURDIR)/bin/a2amock npm test

## ui-screenshots: rewrite docs/ui-live.png and docs/ui-report.png (shown in the README) from the browser tests
ui-screenshots: ui-e2e-deps
	cd $(UIE2E) && UPDATE_SCREENSHOTS=1 A2AMOCK_BIN=$(CURDIR)/bin/a2amock npm test
