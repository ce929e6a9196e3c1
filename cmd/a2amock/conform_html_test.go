package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2amock/a2amock/ui"
)

// TestConformHTML: --html writes the run as the report page, whatever the
// verdict (here a client that does nothing fails its checks).
func TestConformHTML(t *testing.T) {
	out := filepath.Join(t.TempDir(), "conform.html")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"conform", "--quiet", "--client", "true", "--scenario", "three-workers", "--html", out}, &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (checks fail): %s", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"mode":"report"`, ui.ConformSchema, `"three-workers"`, "<!doctype html>"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("the page lacks %s", want)
		}
	}
}

// TestConformHTMLWholeJournal: the page holds each scenario's whole journal
// (here the client's card fetch, which no check cites), so the timeline
// shows every exchange. The test binary is the client: with
// A2AMOCK_TEST_FETCH_CARD set it fetches the agent's card and exits.
func TestConformHTMLWholeJournal(t *testing.T) {
	if os.Getenv("A2AMOCK_TEST_FETCH_CARD") != "" {
		res, err := http.Get(strings.TrimSuffix(os.Getenv("A2A_AGENT_URL"), "/") + "/.well-known/agent-card.json")
		if err == nil {
			res.Body.Close()
		}
		os.Exit(0)
	}
	dir := t.TempDir()
	out, js := filepath.Join(dir, "conform.html"), filepath.Join(dir, "conform.json")
	client := "env A2AMOCK_TEST_FETCH_CARD=1 " + os.Args[0] + " -test.run=^TestConformHTMLWholeJournal$"
	var stdout, stderr bytes.Buffer
	run(context.Background(), []string{"conform", "--quiet", "--client", client, "--scenario", "honest-v10-jsonrpc", "--html", out, "--report-json", js}, &stdout, &stderr)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err, stderr.String())
	}
	if !bytes.Contains(b, []byte(`"journal":[{`)) || !bytes.Contains(b, []byte(`"kind":"card"`)) {
		t.Errorf("the page lacks the scenario's journal with the card fetch:\n%.2000s", b)
	}
	// The JSON report of the same run carries it too: a2amock report on it
	// draws the same view.
	j, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Scenarios []struct {
			Journal []struct {
				Kind string `json:"kind"`
			} `json:"journal"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(j, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Scenarios) != 1 || len(rep.Scenarios[0].Journal) == 0 || rep.Scenarios[0].Journal[0].Kind != "card" {
		t.Errorf("the JSON report's scenario journal: %+v", rep.Scenarios)
	}
}
