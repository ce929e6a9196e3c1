package cards

import (
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/brianvoe/gofakeit/v6"

	"github.com/a2amock/a2amock/wire"
)

// Media types generated cards declare.
const (
	ModeText = "text/plain"
	ModeJSON = "application/json"
)

// Generate returns a realistic v1.0 card for an agent called name, derived
// only from name and seed: the same pair always yields the same card, a
// different seed a different one. An empty name is replaced by a generated
// one. Interfaces are left empty for the server to fill in.
//
// The card has 2–3 skills, exactly one of which needs input; every skill has
// an estimated duration between 2s and 30s. All URLs are on .example hosts.
func Generate(name string, seed uint64) *Card {
	key := generated{name, seed}
	if c, ok := generatedCards.Load(key); ok {
		return c.(*Card).Clone()
	}
	c := generate(name, seed)
	if generatedCount.Add(1) <= maxGeneratedCached {
		generatedCards.Store(key, c.Clone())
	}
	return c
}

// Generating a card costs tens of microseconds of faker work, most of what
// starting a mock costs, and the same name and seed always give the same
// card: keep the first few hundred.
var (
	generatedCards sync.Map // generated → *Card (never handed out)
	generatedCount atomic.Int64
)

const maxGeneratedCached = 512

type generated struct {
	name string
	seed uint64
}

// Clone returns a deep copy of c: every slice and map of the card is its
// own, so the copy can be edited freely.
func (c *Card) Clone() *Card {
	if c == nil {
		return nil
	}
	out := *c
	if c.Provider != nil {
		p := *c.Provider
		out.Provider = &p
	}
	out.DefaultInputModes = slices.Clone(c.DefaultInputModes)
	out.DefaultOutputModes = slices.Clone(c.DefaultOutputModes)
	out.Capabilities.Extensions = slices.Clone(c.Capabilities.Extensions)
	for i, e := range out.Capabilities.Extensions {
		out.Capabilities.Extensions[i].Params = maps.Clone(e.Params)
	}
	out.Skills = slices.Clone(c.Skills)
	for i, sk := range out.Skills {
		out.Skills[i].Tags = slices.Clone(sk.Tags)
		out.Skills[i].Examples = slices.Clone(sk.Examples)
		out.Skills[i].InputModes = slices.Clone(sk.InputModes)
		out.Skills[i].OutputModes = slices.Clone(sk.OutputModes)
	}
	if c.SecuritySchemes != nil {
		out.SecuritySchemes = make(map[string]SecurityScheme, len(c.SecuritySchemes))
		for k, v := range c.SecuritySchemes {
			v.Scopes = maps.Clone(v.Scopes)
			out.SecuritySchemes[k] = v
		}
	}
	out.Security = slices.Clone(c.Security)
	for i, req := range out.Security {
		cp := make(map[string][]string, len(req))
		for k, v := range req {
			cp[k] = slices.Clone(v)
		}
		out.Security[i] = cp
	}
	out.Interfaces = slices.Clone(c.Interfaces)
	return &out
}

func generate(name string, seed uint64) *Card {
	s := int64(seed ^ hashName(name))
	if s == 0 {
		// gofakeit seeds itself from crypto/rand for 0, which would break
		// determinism for this one combination.
		s = 0x5eed
	}
	f := gofakeit.New(s)

	if name == "" {
		name = f.AppName() + " Agent"
	}
	company := f.Company()
	slug := kebab(company)
	if slug == "" {
		slug = "provider"
	}
	agentSlug := kebab(name)
	if agentSlug == "" {
		agentSlug = "agent"
	}

	c := &Card{
		Name: name,
		Description: fmt.Sprintf("%s helps teams %s %s %s. %s",
			name, f.HackerVerb(), f.HackerAdjective(), f.HackerNoun(), sentence(f.HackerPhrase())),
		Version:            f.AppVersion(),
		Dialect:            wire.Newest(),
		Provider:           &Provider{Organization: company, URL: "https://" + slug + ".example"},
		DocumentationURL:   "https://docs." + slug + ".example/agents/" + agentSlug,
		IconURL:            "https://" + slug + ".example/icons/" + agentSlug + ".png",
		Capabilities:       Capabilities{Streaming: true},
		DefaultInputModes:  []string{ModeText, ModeJSON},
		DefaultOutputModes: []string{ModeText, ModeJSON},
	}

	n := f.IntRange(2, 3)
	needsInput := f.IntRange(0, n-1)
	used := map[string]bool{}
	for i := range n {
		verb, adj, noun := f.HackerVerb(), f.HackerAdjective(), f.HackerNoun()
		id := kebab(verb + " " + noun)
		if id == "" {
			id = "skill"
		}
		for base, k := id, 2; used[id]; k++ {
			id = fmt.Sprintf("%s-%d", base, k)
		}
		used[id] = true

		sk := Skill{
			ID:          id,
			Name:        capitalize(verb) + " " + noun,
			Description: fmt.Sprintf("Can %s the %s %s and report what changed. %s", verb, adj, noun, sentence(f.HackerPhrase())),
			Tags:        distinct(kebab(noun), kebab(f.BuzzWord()), kebab(adj)),
			Examples: []string{
				fmt.Sprintf("Please %s the %s %s.", verb, adj, noun),
				fmt.Sprintf("Can you %s every %s %s before %s?", verb, f.HackerAdjective(), noun, f.WeekDay()),
			},
			InputModes:        modes(f),
			OutputModes:       modes(f),
			EstimatedDuration: time.Duration(f.IntRange(4, 60)) * 500 * time.Millisecond,
		}
		if i == needsInput {
			sk.NeedsInput = true
			sk.InputPrompt = fmt.Sprintf("Which %s should I %s first?", noun, verb)
		}
		c.Skills = append(c.Skills, sk)
	}
	return c
}

// modes picks the text mode, the JSON mode or both.
func modes(f *gofakeit.Faker) []string {
	switch f.IntRange(0, 2) {
	case 0:
		return []string{ModeText}
	case 1:
		return []string{ModeJSON}
	}
	return []string{ModeText, ModeJSON}
}

// hashName is FNV-1a of name, mixed into the seed so that two agents with the
// same seed still get different cards.
func hashName(name string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	return h.Sum64()
}

// kebab lowercases s and joins its alphanumeric runs with '-'.
func kebab(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	return b.String()
}

// distinct returns the non-empty values of vs without repeats, in order.
func distinct(vs ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range vs {
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// capitalize upper-cases the first byte of an ASCII word.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// sentence ends s with a full stop unless it already ends a sentence.
func sentence(s string) string {
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") {
		return s
	}
	return s + "."
}
