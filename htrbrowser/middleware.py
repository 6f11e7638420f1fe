"""Headers every page carries, on top of Django's SecurityMiddleware."""

# Pages load only our own scripts, styles and images; the ALTO viewer also shows
# page images from the archive's image server, hence img-src allows https: and http:.
PAGE_CSP = (
    "default-src 'self'; img-src 'self' data: https: http:; style-src 'self'; "
    "script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)


class SecurityHeadersMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        # The results proxy sets its own, stricter policy on raw files.
        response.headers.setdefault("Content-Security-Policy", PAGE_CSP)
        response.headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
        return response
