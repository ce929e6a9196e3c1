package testkit_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2amock/a2amock/cards"
	"github.com/a2amock/a2amock/testkit"
)

// clientHabitCases adds to the golden file the runs that the assertions
// about client habits judge (continuations, the version header, page
// tokens, retries, card refetches and signatures), each with a passing
// and a failing part, so the Python and JS mirrors are held to the Go
// messages of every assertion, not only the lifecycle ones.
func clientHabitCases(t *testing.T, runWith func(string, []testkit.Option, func(*testkit.Mock, string) []goldenCall)) {
	client := func(u, version string) *rawClient {
		return &rawClient{t: t, url: u, version: version, failOK: true}
	}
	needsInput := testkit.WithCardChange("agent", func(c *cards.Card) {
		for i := range c.Skills {
			c.Skills[i].NeedsInput = true
		}
	})
	runWith("input-required answered with its taskId, with the contextId only, to another task, with another contextId", []testkit.Option{testkit.WithSeed(5), needsInput},
		func(_ *testkit.Mock, u string) []goldenCall {
			c := client(u, "1.0")
			first := c.send("m1", "book it", "", "")
			c.send("m2", "the blue one", first["id"].(string), first["contextId"].(string))
			second := c.send("m3", "book another", "", "")
			c.send("m4", "the red one", "", second["contextId"].(string))
			third := c.send("m5", "and a third", "", "")
			c.send("m6", "this one", first["id"].(string), third["contextId"].(string))
			fourth := c.send("m7", "and a fourth", "", "")
			c.send("m8", "that one", fourth["id"].(string), second["contextId"].(string))
			return nil
		})
	runWith("a v1.0 request without A2A-Version", []testkit.Option{testkit.WithSeed(6)},
		func(_ *testkit.Mock, u string) []goldenCall {
			c := client(u, "1.0")
			c.send("m1", "hi", "", "")
			c.version = ""
			c.send("m2", "hi again", "", "")
			c.call("GetTask", map[string]any{"id": "no-such-task"})
			return nil
		})
	runWith("ListTasks following a nextPageToken that repeats", []testkit.Option{testkit.WithSeed(7), testkit.WithBehavior("agent", "list-pagination-loop")},
		func(_ *testkit.Mock, u string) []goldenCall {
			c := client(u, "1.0")
			for _, id := range []string{"m1", "m2", "m3"} {
				c.send(id, "hi "+id, "", "")
			}
			token := ""
			for range 4 {
				page := c.call("ListTasks", map[string]any{"pageSize": 1, "pageToken": token})
				token, _ = page["nextPageToken"].(string)
			}
			return nil
		})
	runWith("ListTaskPushNotificationConfigs following a nextPageToken that repeats", []testkit.Option{testkit.WithSeed(7),
		testkit.WithBehavior("agent", "list-pagination-loop:lists=push-configs"),
		testkit.WithCardChange("agent", func(c *cards.Card) { c.Capabilities.PushNotifications = true })},
		func(_ *testkit.Mock, u string) []goldenCall {
			c := client(u, "1.0")
			id := c.send("m1", "hi", "", "")["id"].(string)
			for _, cfg := range []string{"c1", "c2"} {
				c.call("CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "id": cfg, "url": "https://example.example/hook"})
			}
			token := ""
			for range 3 {
				page := c.call("ListTaskPushNotificationConfigs", map[string]any{"taskId": id, "pageSize": 1, "pageToken": token})
				token, _ = page["nextPageToken"].(string)
			}
			return nil
		})
	runWith("a failed send retried with the same and with a new messageId", []testkit.Option{testkit.WithSeed(8),
		testkit.WithBehavior("agent", "http-error:status=503,op=send,call=1", "http-error:status=503,op=send,call=3")},
		func(_ *testkit.Mock, u string) []goldenCall {
			c := client(u, "1.0")
			c.send("m1", "charge the card", "", "ctx-1") // fails
			c.send("m1", "charge the card", "", "ctx-1") // a retry that reuses the id
			c.send("m2", "charge the card", "", "ctx-1") // fails
			c.send("m4", "charge the card", "", "ctx-1") // the retry of m2, with a new id
			return nil
		})
	runWith("card changed, fetched again once, then not", []testkit.Option{testkit.WithSeed(9)},
		func(m *testkit.Mock, u string) []goldenCall {
			c := client(u, "1.0")
			fetch := func() { get(t, u+".well-known/agent-card.json") }
			last := func() int64 { j := m.Journal(); return j[len(j)-1].Seq }
			fetch()
			c.send("m1", "hi", "", "")
			require.NoError(t, m.SetBehavior("agent", "card-underclaims"))
			first := last()
			fetch()
			c.send("m2", "hi", "", "")
			require.NoError(t, m.SetBehavior("agent"))
			second := last()
			c.send("m3", "hi", "", "")
			return []goldenCall{
				{Assert: "AssertCardRefetchedOnChange", Agent: "agent", ChangedAt: first},
				{Assert: "AssertCardRefetchedOnChange", Agent: "agent", ChangedAt: second},
				{Assert: "AssertCardRefetchedOnChange", Agent: "agent", ChangedAt: last()},
			}
		})
	runWith("signed cards: keys fetched, then not", []testkit.Option{testkit.WithSeed(12), testkit.WithSignedCards(), testkit.WithAgents("agent", "other")},
		func(m *testkit.Mock, u string) []goldenCall {
			get(t, m.CardURL("agent"))
			get(t, m.AgentURL("agent")+"/.well-known/jwks.json")
			client(m.AgentURL("agent")+"/", "1.0").send("m1", "hi", "", "")
			get(t, m.CardURL("other"))
			client(m.AgentURL("other")+"/", "1.0").send("m2", "hi", "", "")
			return nil
		})
	pushing := func(name string) testkit.Option {
		return testkit.WithCardChange(name, func(c *cards.Card) { c.Capabilities.PushNotifications = true })
	}
	runWith("terminal pushes dropped: one task polled after, one not; another agent's pushes all delivered",
		[]testkit.Option{testkit.WithSeed(14), testkit.WithAgents("agent", "other"), pushing("agent"), pushing("other"),
			testkit.WithBehavior("agent", "push-drop:terminal=true")},
		func(m *testkit.Mock, u string) []goldenCall {
			hook := testkit.Webhook(t)
			sendWithPush := func(u, msgID string, delivered int) string {
				res := client(u, "1.0").call("SendMessage", map[string]any{
					"message":       map[string]any{"messageId": msgID, "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hi"}}},
					"configuration": map[string]any{"taskPushNotificationConfig": map[string]any{"url": hook.URL}},
				})
				id := res["task"].(map[string]any)["id"].(string)
				require.Eventually(t, func() bool { return len(testkit.PushedStates(m.Journal(), id)) == delivered }, 10*time.Second, time.Millisecond)
				return id
			}
			polled := sendWithPush(u, "m1", 2)
			client(u, "1.0").call("GetTask", map[string]any{"id": polled})
			sendWithPush(u, "m2", 2)
			sendWithPush(m.AgentURL("other")+"/", "m3", 3)
			return nil
		})
	runWith("a card whose signature fails, used anyway", []testkit.Option{testkit.WithSeed(13),
		testkit.WithBehavior("agent", "card-signature:mode=first-bad,call=1", "card-signature:mode=alg-none,call=2", "card-signature:call=3")},
		func(_ *testkit.Mock, u string) []goldenCall {
			c := client(u, "1.0")
			get(t, u+".well-known/agent-card.json") // first-bad: a verifier accepts it
			c.send("m1", "hi", "", "")
			get(t, u+".well-known/agent-card.json") // alg-none
			c.send("m2", "hi", "", "")
			c.send("m3", "hi", "", "")
			get(t, u+".well-known/agent-card.json") // tampered
			c.send("m4", "hi", "", "")
			return nil
		})
}
