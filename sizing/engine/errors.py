"""The one error type of the engine: bad input, naming the field at fault."""

from __future__ import annotations


class InputError(ValueError):
    """Bad input. `field` names the offending input (e.g. `workload.heads`, `offering.gpu`)."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason
