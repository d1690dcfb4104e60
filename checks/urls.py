from __future__ import annotations

from django.urls import path

from checks import views

app_name = "checks"

urlpatterns = [
    path("checklist/", views.checklist_page, name="checklist"),
]
