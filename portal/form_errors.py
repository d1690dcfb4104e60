"""A Django ValidationError raised by a service, shown on the form or in the API body that caused it."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext


def messages_by_field(exc: ValidationError, field: str | None) -> dict[Any, list[str]]:
    """The error's messages by field; an error tied to no field is put under `field`."""
    if hasattr(exc, "error_dict"):
        return dict(exc.message_dict)
    return {field: list(exc.messages)}


def add_form_errors(form: forms.BaseForm, exc: ValidationError, field: str | None) -> None:
    """Each message on its own field when the form has it, otherwise on `field` (None: the whole form)."""
    for name, messages in messages_by_field(exc, field).items():
        form.add_error(name if name in form.fields else field, messages)


def labelled_errors(form: forms.BaseForm, exc: ValidationError) -> list[str]:
    """Each field's messages as one line a page shows apart from the form (a flash message): the field named
    by the label the form declares ("Offering: ..."), an error of the whole form as it is."""
    lines = []
    for name, messages in messages_by_field(exc, None).items():
        reason = " ".join(str(m) for m in messages)
        field = form.fields.get(name) if name else None
        if field is None or not field.label:
            lines.append(reason)
        else:
            lines.append(gettext("%(field)s: %(reason)s") % {"field": field.label, "reason": reason})
    return lines
