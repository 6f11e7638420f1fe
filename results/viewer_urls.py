from django.urls import path

from results import viewers

urlpatterns = [
    path("log", viewers.log_view, name="log"),
    path("log/more", viewers.log_more, name="log-more"),
    path("log/earlier", viewers.log_earlier, name="log-earlier"),
    path("alto", viewers.alto_view, name="alto"),
    path("alto/text", viewers.alto_text, name="alto-text"),
]
