from django.apps import AppConfig


class BenchmarksConfig(AppConfig):
    name = "benchmarks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from benchmarks.selectors import offering_page_verified_claims
        from providers.page_context import offering_page_section

        # The offering page shows the claims public evidence verified (the catalog cannot import us).
        offering_page_section(offering_page_verified_claims)
