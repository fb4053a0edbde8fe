"""What validation says about a draft: a typed report, and the error for unreadable drafts.

:class:`DraftReport` lists every problem found (plans.md section 3), each with a stable
``code``, the ``step`` key it concerns (``None`` for plan-level problems) and a JSON
``path`` (RFC 6901) into the draft. Problems are ordered by (step position, rule order, path)
as documented in :func:`cerebri.plans.validate_draft`; a draft with no problem is valid.

:class:`DraftError` is raised only when a document is not a draft at all (malformed JSON,
wrong shapes, unknown fields in an operator draft): code ``draft.schema``; text that is not
strict JSON raises the JSON layer's :class:`~cerebri.errors.ParseError` (``json.*`` codes).
"""

from __future__ import annotations

from dataclasses import dataclass

from cerebri._json import JSONValue
from cerebri.errors import CerebriError

__all__ = ["DraftError", "DraftProblem", "DraftReport", "draft_argument_error"]


class DraftError(CerebriError, ValueError):
    """A JSON document that is not a plan draft: code ``draft.schema``, ``path`` points at
    the first offending member.

    ``problems`` lists every shape problem found, in the order the schema reports them (a
    model repair loop needs them all at once); ``code``, ``path`` and ``message`` are the
    first one's. When not given, ``problems`` is the error itself as one problem.
    """

    code = "draft.schema"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        path: str | None = None,
        problems: tuple[DraftProblem, ...] = (),
    ):
        super().__init__(message, code=code, path=path)
        self.problems = problems or (DraftProblem(self.code, None, path or "", message),)


def draft_argument_error(message: str) -> DraftError:
    """The argument guard's error for :mod:`cerebri.plans`: code ``draft.invalid_argument``
    (a public function got a wrong-typed Python argument; see :mod:`cerebri._guard`)."""
    return DraftError(message, code="draft.invalid_argument")


@dataclass(frozen=True, slots=True)
class DraftProblem:
    """One broken rule: ``code`` (``draft.*``), the ``step`` key or ``None``, ``path``
    (JSON pointer into the draft) and a human ``message``."""

    code: str
    step: str | None
    path: str
    message: str

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"code", "step", "path", "message"}``."""
        return {"code": self.code, "step": self.step, "path": self.path, "message": self.message}


@dataclass(frozen=True, slots=True)
class DraftReport:
    """The outcome of validating a draft: ``problems`` in report order; ``ignored`` are the
    JSON pointers of model-proposed fields that were dropped (plans.md section 3)."""

    problems: tuple[DraftProblem, ...] = ()
    ignored: tuple[str, ...] = ()

    @property
    def valid(self) -> bool:
        """True when no rule is broken (dropped fields do not make a draft invalid)."""
        return not self.problems

    @property
    def codes(self) -> tuple[str, ...]:
        """The problem codes in report order."""
        return tuple(p.code for p in self.problems)

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"valid": bool, "problems": [...], "ignored": [...]}``."""
        return {
            "valid": self.valid,
            "problems": [p.to_wire() for p in self.problems],
            "ignored": list(self.ignored),
        }
