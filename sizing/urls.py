from django.urls import path

from sizing import views

app_name = "sizing"

urlpatterns = [
    path("", views.plan_new, name="new"),
    path("workloads/", views.workload_list, name="workloads"),
    path("<int:run_id>/", views.run_detail, name="run"),
    path("<int:run_id>/progress/", views.run_progress, name="progress"),
    path("<int:run_id>/retry/", views.run_retry, name="retry"),
    path("<int:run_id>/<slug:slug>/", views.result_detail, name="result"),
]
