from django.urls import path

from results import viewers

urlpatterns = [
    path("log", viewers.log_view, name="log"),
    path("log/more", viewers.log_more, name="log-more"),
    path("log/earlier", viewers.log_earlier, name="log-earlier"),
    path("log/find", viewers.log_find, name="log-find"),
    path("alto", viewers.alto_view, name="alto"),
    path("alto/text", viewers.alto_text, name="alto-text"),
]
