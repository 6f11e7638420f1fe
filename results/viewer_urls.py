from django.urls import path

from results.viewers import alto, log

urlpatterns = [
    path("log", log.log_view, name="log"),
    path("log/more", log.log_more, name="log-more"),
    path("log/earlier", log.log_earlier, name="log-earlier"),
    path("log/find", log.log_find, name="log-find"),
    path("alto", alto.alto_view, name="alto"),
    path("alto/text", alto.alto_text, name="alto-text"),
]
