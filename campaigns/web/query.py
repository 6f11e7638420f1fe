"""Reading a page's or the read API's query parameters: the one rule for a whole number."""


def whole_number(value, default: int, maximum: int) -> int | None:
    """A whole number from a query parameter, at most ``maximum``: ``default`` when the parameter is absent or
    empty, None when it is not a whole number of zero or more (the read API refuses that; a page falls back)."""
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    if number < 0:
        return None
    return min(number, maximum)
