from django.urls import path

from providers import views

app_name = "providers"

urlpatterns = [
    path("", views.offering_browse, name="browse"),
    path("<slug:slug>/", views.offering_detail, name="offering"),
    path("<slug:slug>/edit/", views.offering_edit, name="offering-edit"),
    path("<slug:slug>/facts/", views.offering_facts_edit, name="offering-facts"),
]
