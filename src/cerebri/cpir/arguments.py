"""The argument guard's factory of :mod:`cerebri.cpir`: code ``cpir.invalid_argument``.

A wrong-typed Python argument to a public function of :mod:`cerebri.cpir`
(``range_wire(None, end)``, ``parse_model(None, text)``, ``require(None, ...)``) raises
:class:`~cerebri.errors.InvalidArgumentError` with this code before anything runs (decision
0017). Malformed *documents* keep their ``json.*``/``cpir.*`` :class:`~cerebri.errors.ParseError`
codes; this code is for the Python values around them.
"""

from __future__ import annotations

from typing import Final

from cerebri._guard import package_argument_error

__all__ = ["invalid_argument"]

invalid_argument: Final = package_argument_error("cpir")
"""Factory of the ``cpir.invalid_argument`` error (see :mod:`cerebri._guard`)."""
