"""The cerebri exception tree. Every error carries a stable ``code``.

::

    CerebriError                      code, message, path (JSON pointer or None)
     ├── ParseError (ValueError)      input is not a well-formed CPIR document
     │     codes: json.syntax, json.duplicate_key, json.non_finite_number,
     │            json.number_out_of_range, json.too_deep, json.not_object,
     │            cpir.unknown_field, cpir.missing_field, cpir.invalid_enum,
     │            cpir.invalid_value
     ├── InputTooLargeError (ValueError)
     │     codes: input.too_large    (raw text or a file over its byte limit, before parsing)
     ├── InvalidArgumentError (TypeError, ValueError) a wrong-typed or unusable argument
     │     codes: input.invalid_text     (text with a NUL character or a lone surrogate,
     │                                   which a store cannot hold: cerebri._text)
     │            input.invalid_argument (packages use their own: proposal.invalid_argument,
     │                                   draft.invalid_argument, ics.invalid_argument,
     │                                   temporal.invalid_argument, cpir.invalid_argument,
     │                                   calendars.invalid_argument, caldav.invalid_argument;
     │                                   see cerebri._guard.package_argument_error)
     ├── UnwritableOutputError        (cerebri._files) an output file cannot be written
     │     codes: input.unwritable   (parent missing or not writable, or the path exists and
     │                                is not a regular file: a FIFO, device, directory, symlink)
     ├── UnreadableInputError         (cerebri._files) a file cannot be read
     │     codes: input.unreadable   (absent, no permission, or not a regular file:
     │                                a device, FIFO, socket or directory)
     ├── TemporalRejected             (cerebri.temporal) temporal.* codes
     ├── PlanError                    (cerebri.planner)  plan.* codes
     ├── CalendarError                (cerebri.ics)      ics.* codes
     ├── CalDAVError                  (cerebri.integrations) caldav.* codes
 ├── CredentialsError             (cerebri.integrations.credentials) credentials.invalid,
 │                                credentials.insecure (a CalDAV credentials or netrc file)
     ├── ItipError (ValueError)       (cerebri.calendars.itip) itip.* codes
     ├── DraftError (ValueError)      (cerebri.plans)     draft.* codes (not a draft at all;
     │                                                    broken rules go in a DraftReport)
     ├── CapabilityError (ValueError) (cerebri.plans)     capability.* codes
     ├── ClockError (ValueError)      (cerebri.clock)     clock.backwards, clock.invalid_argument
     ├── StoreError                   (cerebri.execution.store) store.invalid_url,
     │                                store.unreachable, store.unavailable, store.full,
     │                                store.too_new, store.not_initialised,
     │                                store.invalid_argument, store.illegal_transition
     ├── AdapterError                 (cerebri.execution.adapters) adapter.failed,
     │                                adapter.unavailable, adapter.invalid_params,
     │                                adapter.unsupported_capability, adapter.output_too_large,
     │                                adapter.invalid_argument,
     │                                calendar.conflict, calendar.not_found,
     │                                calendar.revision_mismatch, calendar.unknown_calendar,
     │                                calendar.unreadable, calendar.unsupported, calendar.busy,
     │                                calendar.write_failed, service.not_found; attribute
     │                                ``retryable``
     └── ProposalError (ValueError)   (cerebri.proposals) proposal.* codes

``code`` is what the CLI, the HTTP layer and callers switch on; ``message`` is for humans and
may change between releases. A request that parses but is not plannable is *not* an error: it
yields a ``ValidationReport`` with issues (planner.md section 2).
"""

from __future__ import annotations

__all__ = [
    "CerebriError",
    "InputTooLargeError",
    "InvalidArgumentError",
    "ParseError",
    "UnreadableInputError",
    "UnwritableOutputError",
]


class CerebriError(Exception):
    """Base of every error raised by cerebri.

    Attributes:
        code: stable machine-readable identifier, e.g. ``"cpir.unknown_field"``.
        message: human-readable explanation.
        path: RFC 6901 JSON pointer into the input (``""`` is the whole document), or
            ``None`` when no position applies.
    """

    code: str = "cerebri.error"

    def __init__(self, message: str, *, code: str | None = None, path: str | None = None):
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message
        self.path = path

    def __str__(self) -> str:
        where = f" at {self.path}" if self.path is not None else ""
        return f"{self.code}{where}: {self.message}"

    def to_wire(self) -> dict[str, str | None]:
        """``{"code": …, "path": …, "message": …}``, the form printed by the CLI."""
        return {"code": self.code, "path": self.path, "message": self.message}


class ParseError(CerebriError, ValueError):
    """The input is not a CPIR document this version can read (HTTP 422 class).

    Raised for malformed JSON, duplicate keys, ``NaN``/``Infinity``, nesting deeper than
    128 levels, unknown fields, missing required fields, wrong enum spellings and values out
    of range (cpir-0.2.md section 1).
    """

    code = "cpir.invalid_value"


class InputTooLargeError(CerebriError, ValueError):
    """The raw input is larger than the configured byte limit (HTTP 413 class)."""

    code = "input.too_large"


class InvalidArgumentError(CerebriError, TypeError, ValueError):
    """A public function got an argument of the wrong Python type (``None`` for a
    :class:`~cerebri.planner.PlannerLimits`, a ``str`` for an instant...) or an argument
    value it cannot use (``rank=0``). Raised before anything runs; also a ``TypeError`` and
    a ``ValueError``, what Python raises for those, so either ``except`` clause catches it."""

    code = "input.invalid_argument"


class UnwritableOutputError(CerebriError):
    """An output path (``propose --out``) cannot take the file: its directory is missing or
    not writable, or the path exists and is not a regular file. The message names the path.
    Checked before anything else is written, so a refused command leaves nothing behind."""

    code = "input.unwritable"


class UnreadableInputError(CerebriError):
    """A file cannot be read: it is absent, not permitted, or not a regular file (a
    device such as ``/dev/zero``, a FIFO, a socket or a directory). The message names the
    path.

    Attributes:
        missing: ``True`` when the path does not exist (callers may treat that as "empty").
    """

    code = "input.unreadable"

    def __init__(self, message: str, *, missing: bool = False) -> None:
        super().__init__(message)
        self.missing = missing
