# a2amock — make test is what CI runs (.ci/run).
GO ?= go
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
FUZZTIME ?= 5s

.PHONY: test unit fuzz interop interop-deps bench lint generate serve

## test: everything CI checks: vet, race-enabled unit tests, a short fuzz run, interop with real SDKs
test: lint-fast unit fuzz interop

unit:
	$(GO) test -race -count=1 ./...

fuzz:
	$(GO) test -run='^$$' -fuzz='^FuzzDecodeRPC$$' -fuzztime=$(FUZZTIME) ./a2a
	$(GO) test -run='^$$' -fuzz='^FuzzJSONRPC$$' -fuzztime=$(FUZZTIME) ./server
	$(GO) test -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=$(FUZZTIME) ./scenario

interop-deps:
	npm ci --prefix interop/js --no-audit --no-fund

interop: interop-deps
	cd interop && $(GO) test -race -count=1 ./...

## bench: the benchmarks behind the figures in the issues' closing notes
bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./server ./testkit ./sse

lint-fast:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	cd interop && $(GO) vet ./...

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
