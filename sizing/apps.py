from django.apps import AppConfig


class SizingConfig(AppConfig):
    name = "sizing"
    default_auto_field = "django.db.models.BigAutoField"
