"""Placeholder: the results-session middleware lands with the results proxy."""


class ResultsSessionMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.results_account = None
        return self.get_response(request)
