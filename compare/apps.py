from django.apps import AppConfig


class CompareConfig(AppConfig):
    name = "compare"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from benchmarks.signals import upload_parsed
        from compare import receivers
        from providers.signals import subscribe

        subscribe(
            "compare",
            on_offerings_changed=receivers.on_offerings_changed,
            on_catalog_imported=receivers.on_catalog_imported,
        )
        # new public evidence changes the interconnect and bandwidth panels
        upload_parsed.connect(receivers.on_catalog_imported, dispatch_uid="compare.upload_parsed")
