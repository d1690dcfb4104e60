from django.urls import path

from quotes import views

app_name = "quotes"

urlpatterns = [
    path("", views.quote_list, name="list"),
    path("new/", views.quote_create, name="create"),
    path("<int:quote_id>/", views.quote_detail, name="detail"),
    path("<int:quote_id>/pdf", views.quote_pdf, name="pdf"),
    path("<int:quote_id>/pdf/status", views.quote_pdf_status, name="pdf-status"),
    path("<int:quote_id>/share", views.quote_share, name="share"),
    path("<int:quote_id>/share/revoke", views.quote_unshare, name="unshare"),
    path("shared/<str:token>/", views.shared_detail, name="shared"),
    path("shared/<str:token>/pdf", views.shared_pdf, name="shared-pdf"),
    path("shared/<str:token>/pdf/status", views.shared_pdf_status, name="shared-pdf-status"),
]
