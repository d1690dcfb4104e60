from __future__ import annotations

from django.contrib import admin

from benchmarks.models import Blob, Upload


@admin.register(Blob)
class BlobAdmin(admin.ModelAdmin[Blob]):
    list_display = ["sha256", "size_bytes", "created_at"]
    readonly_fields = ["sha256", "size_bytes", "storage_name", "created_at"]


@admin.register(Upload)
class UploadAdmin(admin.ModelAdmin[Upload]):
    list_display = [
        "id",
        "original_filename",
        "offering",
        "owner",
        "status",
        "kind",
        "visibility",
        "created_at",
    ]
    list_filter = ["status", "kind", "visibility"]
    list_select_related = ["offering", "owner"]
    raw_id_fields = ["blob", "owner", "offering"]
    readonly_fields = ["blob", "batch", "parsed_at", "created_at"]
