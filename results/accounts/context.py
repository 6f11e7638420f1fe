"""Template context: who is logged in to the results store (shown in the header)."""


def results_user(request):
    current = getattr(request, "results_session", None)
    return {"results_user": current.user if current is not None else ""}
