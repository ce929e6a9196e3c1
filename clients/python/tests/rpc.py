"""A few raw v1.0 JSON-RPC calls, so the plugin's tests need no A2A SDK."""

from __future__ import annotations

import itertools
from typing import Any

import httpx

_ids = itertools.count(1)


def call(url: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    r = httpx.post(url, json={"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": params},
                   headers={"A2A-Version": "1.0"}, timeout=10, trust_env=False)
    r.raise_for_status()
    out: dict[str, Any] = r.json()
    return out


def send(url: str, text: str, skill: str | None = None, task_id: str | None = None,
         context_id: str | None = None, return_immediately: bool = False) -> dict[str, Any]:
    msg: dict[str, Any] = {"messageId": f"m-{next(_ids)}", "role": "ROLE_USER", "parts": [{"text": text}]}
    if skill:
        msg["metadata"] = {"skillId": skill}
    if task_id:
        msg["taskId"] = task_id
    if context_id:
        msg["contextId"] = context_id
    params: dict[str, Any] = {"message": msg}
    if return_immediately:
        params["configuration"] = {"returnImmediately": True}
    return call(url, "SendMessage", params)


def task_of(resp: dict[str, Any]) -> dict[str, Any]:
    task: dict[str, Any] = resp["result"]["task"]
    return task
