package scenario

import (
	"encoding/json"
	"reflect"

	"github.com/a2amock/a2amock/scenario/internal/schemagen"
)

// SchemaID is the $id of the format's JSON Schema.
const SchemaID = "https://a2amock.dev/schemas/scenario.schema.json"

// Schema returns the JSON Schema (draft 2020-12) of the scenario format,
// reflected from the Go types: the same yaml keys, enums and required keys
// the parser checks. It is shipped as docs/scenario.schema.json (go generate
// ./scenario writes it) so editors can complete and check files; add
//
//	# yaml-language-server: $schema=../../docs/scenario.schema.json
//
// at the top of a file for editors that use the YAML language server.
//
// It is generated here rather than with a reflection library because two
// shapes of the format need hand-written schemas anyway (a behavior is a
// string or a mapping; a duration is a string with a unit), and the enums
// and required keys come from the same struct tags the parser reads.
func Schema() []byte {
	root := schemagen.Generate(reflect.TypeFor[Scenario](), []schemagen.Special{
		{Type: durationType, Name: "Duration", Schema: durationSchema},
		{Type: behaviorType, Name: "Behavior", Schema: behaviorSchema},
	})
	root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	root["$id"] = SchemaID
	root["title"] = "a2amock scenario"
	b, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		// Only maps, slices and strings are marshalled.
		panic(err)
	}
	return append(b, '\n')
}

// durationSchema is the schema of a Duration: a Go duration string or 0.
func durationSchema(func(reflect.Type) map[string]any) map[string]any {
	return map[string]any{
		"description": "a Go duration: a number with a unit, e.g. 50ms, 2s, 1m30s (units ns, us, ms, s, m, h)",
		"anyOf": []any{
			map[string]any{"type": "string", "pattern": `^\s*(0|([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))*\s*$`},
			map[string]any{"const": 0},
		},
	}
}

// behaviorSchema is the schema of a BehaviorSpec: its text form or its
// structured form.
func behaviorSchema(ref func(reflect.Type) map[string]any) map[string]any {
	return map[string]any{
		"description": "a behavior from the catalogue: the text form name:key=value,... or the structured form",
		"oneOf": []any{
			map[string]any{"type": "string", "minLength": 1, "description": "name or name:key=value,key=value (as a2amock serve --behavior reads)"},
			ref(behaviorType),
		},
	}
}
