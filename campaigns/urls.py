from django.urls import path

from campaigns import views

urlpatterns = [
    path("", views.campaign_list, name="campaign_list"),
]
