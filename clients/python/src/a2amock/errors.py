"""Errors raised by the a2amock client."""

from __future__ import annotations

from typing import Any


class A2amockError(Exception):
    """Base class of every error the a2amock client raises."""


class BinaryNotFoundError(A2amockError):
    """Neither A2AMOCK_URL, A2AMOCK_BIN nor an a2amock binary on PATH."""


class ServerStartError(A2amockError):
    """The a2amock binary did not start, or did not answer its health check."""


class ControlAPIError(A2amockError):
    """The control API refused a call: a 4xx or 5xx with the server's message.

    ``field`` names the request field at fault when the server says which;
    ``errors`` holds every problem the server listed.
    """

    def __init__(self, method: str, path: str, status: int, message: str,
                 field: str | None = None, errors: list[Any] | None = None,
                 body: str = "") -> None:
        self.method = method
        self.path = path
        self.status = status
        self.message = message
        self.field = field
        self.errors = errors or []
        self.body = body
        where = f" (field {field})" if field else ""
        super().__init__(f"a2amock {method} {path}: HTTP {status}: {message}{where}")


class NotFoundError(ControlAPIError):
    """The control API answered 404: no such agent."""


class ConflictError(ControlAPIError):
    """The control API answered 409: the agent exists, or cannot be removed."""


class InvalidRequestError(ControlAPIError):
    """The control API answered 400, 413 or 415: the request is malformed."""
