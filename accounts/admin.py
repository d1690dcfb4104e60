from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from accounts.models import User


@admin.register(User)
class ClusterScoutUserAdmin(UserAdmin):
    list_display = ("username", "email", "role", "provider", "is_staff", "is_active")
    list_filter = ("role", "is_staff", "is_active")
    fieldsets = (*UserAdmin.fieldsets, ("Role", {"fields": ("role", "provider")}))  # type: ignore[misc]
    add_fieldsets = (*UserAdmin.add_fieldsets, ("Role", {"fields": ("role", "provider")}))
