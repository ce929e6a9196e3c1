package cards_test

import (
	"fmt"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/wire"
)

func ExampleGenerate() {
	c := cards.Generate("Weather Bot", 42)
	fmt.Println(c.Name, c.Version, c.Dialect)
	fmt.Println(c.Provider.Organization, c.Provider.URL)
	for _, s := range c.Skills {
		fmt.Printf("%s %v needsInput=%v\n", s.ID, s.EstimatedDuration, s.NeedsInput)
	}

	// The server adds its addresses before rendering.
	c.Interfaces = []cards.Interface{{URL: "http://127.0.0.1:8080/a2a", Binding: wire.BindingJSONRPC}}
	b, err := cards.Render(c)
	if err != nil {
		fmt.Println(err)
		return
	}
	back, err := cards.Parse(b)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(back.Dialect, back.Interfaces[0].Version, back.Skills[0].EstimatedDuration)
	// Output:
	// Weather Bot 1.15.7 1.0
	// Qado Energy, Inc. https://qado-energy-inc.example
	// bundle-sensor 23.5s needsInput=true
	// quantify-sensor 2.5s needsInput=false
	// input-hard-drive 6.5s needsInput=false
	// 1.0 1.0 23.5s
}
