from django.apps import AppConfig


class ChecksConfig(AppConfig):
    name = "checks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from benchmarks.signals import upload_parsed
        from checks import receivers
        from providers.page_context import offering_page_section
        from providers.signals import catalog_imported, offerings_changed

        offerings_changed.connect(receivers.on_offerings_changed, dispatch_uid="checks.offerings_changed")
        catalog_imported.connect(receivers.on_catalog_imported, dispatch_uid="checks.catalog_imported")
        upload_parsed.connect(receivers.on_upload_parsed, dispatch_uid="checks.upload_parsed")
        offering_page_section(receivers.offering_page_findings)
