from django.contrib import admin

from quotes.models import Quote


@admin.register(Quote)
class QuoteAdmin(admin.ModelAdmin):
    list_display = ("number", "owner", "offering_name", "plan_name", "total_usd", "issued_on", "pdf_status")
    search_fields = ("number", "offering_name", "owner__username")
    readonly_fields = ("snapshot", "version", "share_token")
