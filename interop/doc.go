// Package interop proves a2amock's wire format against independent, real A2A
// clients: the official Go SDK (v1.0 through a2a-go/v2, v0.3 through a2a-go)
// and the JavaScript SDK (@a2a-js/sdk, driven by js/client.mjs).
//
// It is a separate module so those SDKs never enter the dependency graph of
// a2amock itself. Everything lives in the tests; this file only names the
// package.
package interop
