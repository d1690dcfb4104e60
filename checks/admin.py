from __future__ import annotations

from django.contrib import admin

from checks.models import Finding


@admin.register(Finding)
class FindingAdmin(admin.ModelAdmin[Finding]):
    list_display = ["offering", "code", "severity", "context", "updated_at"]
    list_filter = ["severity", "code", "context"]
    search_fields = ["offering__slug", "offering__name", "code", "title"]
    raw_id_fields = ["offering"]
    readonly_fields = ["created_at", "updated_at"]
