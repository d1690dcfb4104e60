from django.urls import path

from rfq import views

app_name = "rfq"

urlpatterns = [
    path("", views.rfq_list, name="list"),
    path("new/", views.rfq_new, name="new"),
    path("<int:rfq_id>/", views.rfq_detail, name="detail"),
    path("<int:rfq_id>/answer/<slug:slug>/", views.answer_new, name="answer"),
    path("<int:rfq_id>/quote/", views.rfq_quote, name="quote"),
]
