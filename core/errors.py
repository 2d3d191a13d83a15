"""One exception hierarchy; each message says what went wrong and what to do next.

The API maps these to HTTP problem details in one place, the CLI prints them without a traceback.
"""

from __future__ import annotations

from typing import Any


class KgragError(Exception):
    """Base class: a problem the user can act on. ``fix`` is the next step, shown with the message."""

    status_code: int = 500
    retry_after_s: int | None = None
    """Seconds after which the same request may succeed (the API's Retry-After), for a passing condition."""

    def __init__(self, message: str, *, fix: str | None = None, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix
        self.details = dict(details or {})
        """Extra members of the API's problem document (e.g. the failed stages); never driver text or paths."""

    def __str__(self) -> str:
        return f"{self.message}: {self.fix}" if self.fix else self.message


class ConfigError(KgragError):
    status_code = 500


class DatabaseError(KgragError):
    status_code = 503


class DatabaseUnavailableError(DatabaseError):
    """The server cannot be reached now. Requests fail at once while it is down; it is retried in the background."""


class DatabaseBusyError(DatabaseError):
    """Every pooled connection stayed in use for the whole wait while the server answers: load, not an outage."""

    retry_after_s = 1


class RetrievalFailedError(KgragError):
    """Every retriever a query asked for failed: that is an outage, not "the documents don't say"."""

    status_code = 503


class ModelUnavailableError(KgragError):
    status_code = 503


class IngestError(KgragError):
    """A single input could not be ingested; the rest of a batch goes on."""

    status_code = 422


class NotFoundError(KgragError):
    status_code = 404


class InvalidInputError(KgragError):
    status_code = 422


class DuplicateDocumentError(KgragError):
    """The same bytes are already stored under another source; storing them twice only doubles hits."""

    status_code = 409


class GraphMissingError(KgragError):
    status_code = 409


class BuildLockedError(KgragError):
    status_code = 409
