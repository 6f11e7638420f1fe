"""Template context shared by every page."""

from django.conf import settings


def site(request):
    return {"namespaces": settings.HTRFLOW_NAMESPACES}
