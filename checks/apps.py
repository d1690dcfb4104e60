from django.apps import AppConfig


class ChecksConfig(AppConfig):
    name = "checks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from benchmarks.signals import upload_parsed
        from checks import receivers
        from providers.page_context import offering_page_section
        from providers.signals import subscribe

        subscribe(
            "checks",
            on_offerings_changed=receivers.on_offerings_changed,
            on_catalog_imported=receivers.on_catalog_imported,
        )
        upload_parsed.connect(receivers.on_upload_parsed, dispatch_uid="checks.upload_parsed")
        offering_page_section(receivers.offering_page_findings)
