package card

import (
	"fmt"
	"slices"
	"strings"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/wire"
)

var extendedCardDiffersSpec = core.Spec{
	Name: "extended-card-differs",
	Doc: `Reproduces agents whose authenticated extended card declares other
skills than the public card: skills only signed-in clients may use, and
public skills withdrawn. The extended card served drops the skills named in
'remove' (by default the public card's last skill) and adds the skills named
in 'add'. Tests that a client re-reads the extended card after
authenticating and routes by it, rather than by the public card.`,
	New: func() core.Behavior { return &ExtendedCardDiffers{Add: []string{"premium-analysis"}} },
}

// ExtendedCardDiffers changes the skills of the extended card served.
type ExtendedCardDiffers struct {
	Add    []string `param:"add" doc:"ids of skills only the extended card declares"`
	Remove []string `param:"remove" doc:"ids of public skills the extended card leaves out (default: the last one)"`
}

// Apply implements Behavior.
func (b *ExtendedCardDiffers) Apply(x *core.Exchange) {
	if x.Op != wire.OpExtendedCard {
		return
	}
	x.OnResult(func(res *wire.Result, err *wire.Error) (*wire.Result, *wire.Error) {
		if err != nil || res == nil || len(res.Card) == 0 {
			return res, err
		}
		c, perr := cards.Parse(res.Card)
		if perr != nil {
			return res, err
		}
		remove := b.Remove
		if len(remove) == 0 && len(c.Skills) > 1 {
			remove = []string{c.Skills[len(c.Skills)-1].ID}
		}
		var kept []cards.Skill
		for _, s := range c.Skills {
			if !slices.Contains(remove, s.ID) {
				kept = append(kept, s)
			}
		}
		for _, id := range b.Add {
			if id == "" || c.Skill(id) != nil {
				continue
			}
			name := strings.ReplaceAll(id, "-", " ")
			kept = append(kept, cards.Skill{ID: id, Name: name, Tags: []string{"extended"},
				Description: fmt.Sprintf("%s, for authenticated clients only.", name)})
		}
		c.Skills = kept
		out, rerr := cards.Render(c)
		if rerr != nil {
			return res, err
		}
		r := *res
		r.Card = out
		return &r, nil
	})
}
