from django.apps import AppConfig


class ProvidersConfig(AppConfig):
    name = "providers"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from providers.cached import connect_model_signals

        # every write to the catalog makes a new catalog version (cached rows and pages are keyed by it)
        connect_model_signals()
