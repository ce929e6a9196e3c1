"""The assertions' messages match the Go testkit's, on the journals of real
runs recorded in testkit/testdata/assertions.json (kept in step with the Go
code by testkit's TestAssertionMessagesGolden)."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path

import pytest

from a2amock import Entry, assertions, assertions_client

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
        elif name == "AssertNoIgnoredFields":
            assertions.assert_no_ignored_fields(journal)
        elif name == "AssertUsedDeclaredInterface":
            assertions.assert_used_declared_interface(journal, call["card"])
        elif name == "AssertContinuationCarriesTaskID":
            assertions_client.assert_continuation_carries_task_id(journal)
        elif name == "AssertSentVersionHeader":
            assertions_client.assert_sent_version_header(journal)
        elif name == "AssertNoPageTokenLoop":
            assertions_client.assert_no_page_token_loop(journal)
        elif name == "AssertRetryReusedMessageID":
            assertions_client.assert_retry_reused_message_id(journal)
        elif name == "AssertCardRefetchedOnChange":
            assertions_client.assert_card_refetched_on_change(journal, call.get("agent", ""), call.get("changedAt", 0))
        elif name == "AssertCardSignatureChecked":
            assertions_client.assert_card_signature_checked(journal, call.get("agent", ""))
        elif name == "AssertNoRequestAfterBadCardSignature":
            assertions_client.assert_no_request_after_bad_card_signature(journal, call.get("agent", ""))
        elif name == "AssertFellBackToPollingFromJournal":
            assertions_client.assert_fell_back_to_polling(journal, call.get("task", ""))
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
    assert sum(1 for c in CASES for call in c["calls"] if call["assert"] == "AssertUsedDeclaredInterface" and call["want"]) == 6


def test_failures_point_at_the_test(pytester: pytest.Pytester) -> None:
    """A failing assertion, called directly or through a Mock, is reported
    at the test's line: pytest hides the assertions' own frames
    (``__tracebackhide__``), as it hides its own."""
    calls = [(c["name"], call) for c in CASES for call in c["calls"] if call["want"]]
    names = {call["assert"] for _, call in calls}
    assert names == {"AssertNoOrphans", "AssertPolledAtMost", "AssertStoppedPollingWithin",
                     "AssertCanceled", "AssertNoContinuationTo", "AssertUsedDeclaredInterface", "AssertNoIgnoredFields",
                     "AssertContinuationCarriesTaskID", "AssertSentVersionHeader", "AssertNoPageTokenLoop",
                     "AssertRetryReusedMessageID", "AssertCardRefetchedOnChange", "AssertCardSignatureChecked",
                     "AssertNoRequestAfterBadCardSignature", "AssertFellBackToPollingFromJournal"}
    pytester.makepyfile(test_positions=f'''
import json
import re
from datetime import timedelta
import pytest
from a2amock import Agent, Entry, Mock, assertions, assertions_client

CASES = json.loads(open({str(GOLDEN)!r}, encoding="utf-8").read())["cases"]
CALLS = [(c, call) for c in CASES for call in c["calls"] if call["want"]]

def args(call):
    name = call["assert"]
    if name == "AssertStoppedPollingWithin":
        return [call["task"], timedelta(milliseconds=call.get("withinMs", 0))]
    if name == "AssertPolledAtMost":
        return [call["task"], call.get("n", 0)]
    if name in ("AssertCanceled", "AssertNoContinuationTo", "AssertFellBackToPollingFromJournal"):
        return [call["task"]]
    if name == "AssertCardRefetchedOnChange":
        return [call["changedAt"], call["agent"]]
    if name in ("AssertCardSignatureChecked", "AssertNoRequestAfterBadCardSignature"):
        return [call["agent"]]
    return []

def direct_args(call):
    name = call["assert"]
    if name == "AssertUsedDeclaredInterface":
        return [call["card"]]
    if name == "AssertCardRefetchedOnChange":
        return [call["agent"], call["changedAt"]]
    return args(call)

def module(name):
    return assertions if hasattr(assertions, snake(name)) else assertions_client

def python_name(name):
    # The Python client has one form, the journal's.
    return snake(name.removesuffix("FromJournal"))

def snake(name):
    # AssertRetryReusedMessageID -> assert_retry_reused_message_id
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()

@pytest.mark.parametrize("i", range(len(CALLS)))
def test_direct(i):
    case, call = CALLS[i]
    journal = [Entry.from_json(e) for e in case["journal"]]
    getattr(module(call["assert"]), python_name(call["assert"]))(journal, *direct_args(call))

@pytest.mark.parametrize("i", range(len(CALLS)))
def test_through_a_mock(i):
    case, call = CALLS[i]
    mock = Mock.__new__(Mock)  # no server: the journal and card are the golden ones
    mock.journal = lambda agent=None: [Entry.from_json(e) for e in case["journal"]]
    mock.card = lambda agent=None: call.get("card")
    # The golden journals name agents as the server does.
    mock._agents = {{a: Agent(a, a, "", "", "", (), ()) for a in {{e["agent"] for e in case["journal"]}}}}
    getattr(mock, python_name(call["assert"]))(*args(call))
''')
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=2 * len(calls))
    out = result.stdout.str()
    assert len(re.findall(r"^test_positions\.py:\d+: AssertionError$", out, re.M)) == 2 * len(calls), out
    assert "assertions.py:" not in out and "mock.py:" not in out, out
