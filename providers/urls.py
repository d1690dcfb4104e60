from django.urls import path

from providers import views

app_name = "providers"

urlpatterns = [
    path("", views.offering_browse, name="browse"),
    path("<slug:slug>/", views.offering_detail, name="offering"),
    # The former edit address serves the sourced form: no path changes a fact without a source and a date.
    path("<slug:slug>/edit/", views.offering_facts_edit, name="offering-edit"),
    path("<slug:slug>/facts/", views.offering_facts_edit, name="offering-facts"),
]
