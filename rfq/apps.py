from django.apps import AppConfig


class RfqConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "rfq"
    verbose_name = "Requests for quote"
