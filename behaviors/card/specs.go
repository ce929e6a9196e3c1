// Package card holds the protocol behaviors of Agent Cards: what the card
// declares against what the agent serves, card signatures, the legacy
// card path and the extended card (OnCard, OnCardJSON, OnSignedCard,
// HideCardAt). They apply to card fetches without a card scope.
package card

import "github.com/a2amock/a2amock/behaviors/core"

// Specs returns the specs of the package's behaviors, for a registry.
func Specs() []core.Spec {
	return []core.Spec{
		cardOverclaimsSpec,
		cardSignatureSpec,
		cardUnderclaimsSpec,
		extendedCardDiffersSpec,
		legacyCardPathOnlySpec,
	}
}
