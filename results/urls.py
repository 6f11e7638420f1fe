from django.urls import path

from results import views

urlpatterns = [
    path("login", views.login_page, name="login"),
    path("logout", views.logout_page, name="logout"),
    path("results/_login", views.api_login, name="results-login"),
    path("results/_logout", views.api_logout, name="results-logout"),
    path("results/_session", views.api_session, name="results-session"),
    path("results/<path:key>", views.result_file, name="results-file"),
]
