package testkit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/a2amock/a2amock/server"
	"github.com/a2amock/a2amock/testkit/internal/excerpt"
)

// JournalPath is where the mock serves its journal.
const JournalPath = "/_a2amock/journal"

// FetchJournal reads the journal of the mock at baseURL (its root URL)
// over HTTP. It reports a failure through t and returns nil when it cannot.
func FetchJournal(t assert.TestingT, baseURL string) []server.Entry {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	entries, err := FetchJournalContext(ctx, nil, baseURL)
	if err != nil {
		assert.Fail(t, err.Error())
		return nil
	}
	return entries
}

// FetchJournalContext reads the journal of the mock at baseURL with c
// (http.DefaultClient when nil), for code without a t.
func FetchJournalContext(ctx context.Context, c *http.Client, baseURL string) ([]server.Entry, error) {
	if c == nil {
		c = http.DefaultClient
		if tr, ok := http.DefaultTransport.(*http.Transport); ok {
			own := tr.Clone()
			defer own.CloseIdleConnections()
			c = &http.Client{Transport: own}
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(baseURL, "/")+JournalPath, nil)
	if err != nil {
		return nil, fmt.Errorf("testkit: journal request: %w", err)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("testkit: fetch journal: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, fmt.Errorf("testkit: read journal: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("testkit: fetch journal: HTTP %d: %s", resp.StatusCode, excerpt.Of(body))
	}
	var out struct {
		Entries []server.Entry `json:"entries"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, fmt.Errorf("testkit: journal is not {\"entries\": [...]}: %v", err)
	}
	return out.Entries, nil
}

// JournalFor keeps the entries of one agent.
func JournalFor(journal []server.Entry, agent string) []server.Entry {
	var out []server.Entry
	for _, e := range journal {
		if e.Agent == agent {
			out = append(out, e)
		}
	}
	return out
}
