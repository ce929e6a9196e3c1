package testkit_test

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/a2amock/a2amock/testkit"
)

// A mock agent for a program or an example; in a test, use testkit.Start(t).
func ExampleNewServer() {
	m, err := testkit.NewServer(testkit.WithSeed(42), testkit.WithAgents("weather"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()

	resp, err := http.Get(m.CardURL("weather"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var card struct {
		Name         string `json:"name"`
		Capabilities struct {
			Streaming bool `json:"streaming"`
		} `json:"capabilities"`
		SupportedInterfaces []struct {
			ProtocolBinding string `json:"protocolBinding"`
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"supportedInterfaces"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&card)
	fmt.Println(card.Name, "streaming:", card.Capabilities.Streaming)
	for _, i := range card.SupportedInterfaces {
		fmt.Println(i.ProtocolBinding, i.ProtocolVersion)
	}
	// Output:
	// weather streaming: true
	// JSONRPC 1.0
	// HTTP+JSON 1.0
}
