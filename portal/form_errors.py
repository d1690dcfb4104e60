"""A Django ValidationError raised by a service, shown on the form or in the API body that caused it."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError


def messages_by_field(exc: ValidationError, field: str | None) -> dict[Any, list[str]]:
    """The error's messages by field; an error tied to no field is put under `field`."""
    if hasattr(exc, "error_dict"):
        return dict(exc.message_dict)
    return {field: list(exc.messages)}


def add_form_errors(form: forms.BaseForm, exc: ValidationError, field: str | None) -> None:
    """Each message on its own field when the form has it, otherwise on `field` (None: the whole form)."""
    for name, messages in messages_by_field(exc, field).items():
        form.add_error(name if name in form.fields else field, messages)
