module github.com/a2amock/a2amock/conformance/clients/go-a2a

go 1.26.0

require github.com/a2aproject/a2a-go/v2 v2.4.0

require (
	github.com/google/uuid v1.6.0 // indirect
	golang.org/x/mod v0.35.0 // indirect
)
