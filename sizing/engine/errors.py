"""The one error type of the engine: bad input, naming the field at fault."""

from __future__ import annotations

from typing import Any

from hardware.messages import Msg


class InputError(ValueError):
    """Bad input. `field` names the offending input (e.g. `workload.heads`, `offering.gpu`).

    `reason` is a `Msg` (`hardware.messages._`): its text is the English the CLI, `str(err)` and the API
    give; its message id and values let a page show it in its own language (`message`, translated by
    `sizing.input_errors`). tests/sizing/test_input_error_messages.py holds every raise to a message id
    with a Chinese translation."""

    def __init__(self, field: str, reason: Msg) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason

    @property
    def message(self) -> dict[str, Any]:
        """The reason as {"msgid", "params"} (a plain string, from code that predates the messages, is its
        own message id and stays English where the catalog has no entry for it)."""
        if isinstance(self.reason, Msg):
            return self.reason.as_json()
        return {"msgid": str(self.reason).replace("%", "%%"), "params": {}}
