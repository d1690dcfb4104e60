from django.urls import path  # noqa: F401

app_name = "quotes"

urlpatterns: list = []
