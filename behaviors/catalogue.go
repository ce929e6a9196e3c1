package behaviors

import (
	"slices"

	"github.com/a2amock/a2amock/behaviors/card"
	"github.com/a2amock/a2amock/behaviors/lifecycle"
	"github.com/a2amock/a2amock/behaviors/push"
	"github.com/a2amock/a2amock/behaviors/stream"
	"github.com/a2amock/a2amock/behaviors/transport"
)

// Catalogue returns a registry holding every built-in behavior. Each call
// returns a new registry, so a program may add its own behaviors to it.
func Catalogue() *Registry {
	return NewRegistry().MustRegister(slices.Concat(lifecycle.Specs(), stream.Specs(), card.Specs(),
		push.Specs(), transport.Specs())...)
}

// Parse builds a built-in behavior from text ("name:key=value,...") using
// Catalogue.
func Parse(text string) (*Scoped, error) { return Catalogue().Parse(text) }
