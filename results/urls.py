from django.urls import path

from results import file_views, login_views

urlpatterns = [
    path("login", login_views.login_page, name="login"),
    path("logout", login_views.logout_page, name="logout"),
    path("results/_login", login_views.api_login, name="results-login"),
    path("results/_logout", login_views.api_logout, name="results-logout"),
    path("results/_session", login_views.api_session, name="results-session"),
    path("results/<path:key>", file_views.result_file, name="results-file"),
]
