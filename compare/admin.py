from django.contrib import admin

from compare.models import PresetRun


@admin.register(PresetRun)
class PresetRunAdmin(admin.ModelAdmin):
    list_display = ("preset", "run", "updated_at")
    raw_id_fields = ("run",)
