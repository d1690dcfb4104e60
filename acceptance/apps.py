from django.apps import AppConfig


class AcceptanceConfig(AppConfig):
    name = "acceptance"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from acceptance.selectors import offering_page_acceptance
        from providers.page_context import offering_page_section

        # The offering page shows the dated acceptance verdicts beside the claims (the catalog cannot
        # import us).
        offering_page_section(offering_page_acceptance)
