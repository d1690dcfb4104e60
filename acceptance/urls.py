from django.urls import path

from acceptance import views

app_name = "acceptance"

urlpatterns = [
    path("", views.start, name="start"),
    path("bundle/", views.bundle_new, name="bundle-new"),
    path("<int:run_id>/", views.report, name="report"),
]
