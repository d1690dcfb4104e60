"""The evidence upload form (shape only; size, type and duplicates are the service's business)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from benchmarks.models import Upload
from hardware.gpus import LARGEST_CLUSTER_GPUS
from providers.models import Offering


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("widget", MultipleFileInput(attrs={"multiple": True}))
        super().__init__(*args, **kwargs)

    def clean(self, data: Any, initial: Any = None) -> Any:
        single = super().clean
        limit = settings.UPLOAD_MAX_FILES_PER_REQUEST
        if isinstance(data, list | tuple) and len(data) > limit:
            raise forms.ValidationError(
                _("at most %(limit)s files per upload; %(sent)s were sent. Send them in several uploads.")
                % {"limit": limit, "sent": len(data)},
                code="too_many_files",
            )
        if isinstance(data, list | tuple) and not data and self.required:
            # named with the other fields' errors, not only once they are right (the service says the same)
            raise forms.ValidationError(_("Choose at least one file."), code="required")
        if isinstance(data, list | tuple):
            return [single(d, initial) for d in data]
        return [single(data, initial)]


class UploadForm(forms.Form):
    # Named `file` like the API's multipart part (and because `files` is the form's own upload dict).
    file = MultipleFileField(
        label=_("Log or report files"),
        help_text=_("nccl-tests / rccl-tests, ib_write_bw, training logs, dcgmi diag, nvidia-smi, ibstat..."),
    )
    offering = forms.ModelChoiceField(
        queryset=Offering.objects.select_related("provider").order_by("provider__name", "name"),
        to_field_name="slug",
        label=_("Offering"),
        empty_label=_("Choose the offering you trialled"),
    )
    nodes = forms.IntegerField(
        min_value=1,
        max_value=LARGEST_CLUSTER_GPUS,
        required=False,
        label=_("Nodes"),
        help_text=_("nodes in the run, if the log does not say"),
    )
    gpus = forms.IntegerField(
        min_value=1,
        max_value=LARGEST_CLUSTER_GPUS,
        required=False,
        label=_("GPUs"),
        help_text=_("GPUs in the run, if the log does not say"),
    )
    measured_on = forms.DateField(
        required=False, label=_("Measured on"), widget=forms.DateInput(attrs={"type": "date"})
    )
    notes = forms.CharField(
        required=False, label=_("Notes"), widget=forms.Textarea(attrs={"rows": 3}), max_length=5000
    )
    visibility = forms.ChoiceField(
        choices=Upload.Visibility.choices, initial=Upload.Visibility.PRIVATE, label=_("Visibility")
    )
