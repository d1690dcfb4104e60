from django.urls import path

from benchmarks import views

app_name = "benchmarks"

urlpatterns = [
    path("upload/", views.upload_new, name="upload-new"),
    path("<int:upload_id>/", views.upload_detail, name="upload"),
    path("<int:upload_id>/status/", views.upload_status, name="upload-status"),
    path("batch/<uuid:batch>/", views.batch_detail, name="batch"),
]
