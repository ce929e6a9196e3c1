"""The assertions' messages match the Go testkit's, on the journals of real
runs recorded in testkit/testdata/assertions.json (kept in step with the Go
code by testkit's TestAssertionMessagesGolden)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from a2amock import Entry, assertions

GOLDEN = Path(__file__).resolve().parents[3] / "testkit" / "testdata" / "assertions.json"
CASES = json.loads(GOLDEN.read_text(encoding="utf-8"))["cases"]


def run(journal: list[Entry], call: dict) -> str:
    try:
        name = call["assert"]
        if name == "AssertNoOrphans":
            assertions.assert_no_orphans(journal)
        elif name == "AssertPolledAtMost":
            assertions.assert_polled_at_most(journal, call.get("task", ""), call.get("n", 0))
        elif name == "AssertStoppedPollingWithin":
            assertions.assert_stopped_polling_within(journal, call.get("task", ""), timedelta(milliseconds=call.get("withinMs", 0)))
        elif name == "AssertCanceled":
            assertions.assert_canceled(journal, call.get("task", ""))
        elif name == "AssertNoContinuationTo":
            assertions.assert_no_continuation_to(journal, call.get("task", ""))
        elif name == "AssertUsedDeclaredInterface":
            assertions.assert_used_declared_interface(journal, call["card"])
        else:
            raise ValueError(name)
    except AssertionError as e:
        return str(e)
    return ""


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_messages_match_the_go_testkit(case: dict) -> None:
    journal = [Entry.from_json(e) for e in case["journal"]]
    for call in case["calls"]:
        assert run(journal, call) == call["want"], f'{call["assert"]}({call.get("task", "")})'


def test_the_golden_file_has_failures() -> None:
    assert sum(1 for c in CASES for call in c["calls"] if call["want"]) > 10
    assert sum(1 for c in CASES for call in c["calls"] if call["assert"] == "AssertUsedDeclaredInterface" and call["want"]) == 5
