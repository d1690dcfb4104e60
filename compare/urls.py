from django.urls import path

from compare import views

app_name = "compare"

urlpatterns = [
    path("", views.compare_page, name="page"),
    path("sizing/<int:run_id>/", views.sizing_status, name="sizing-status"),
]
