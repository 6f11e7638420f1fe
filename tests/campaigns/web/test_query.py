"""The one rule for a whole number in a query parameter, which the pages and the read API share."""

import pytest

from campaigns.web.query import whole_number


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, 7), ("", 7), ("0", 0), ("12", 12), ("100", 100), ("101", 100), ("10" * 40, 100),
     ("-1", None), ("1.5", None), ("x", None), ("١٢", 12), (" 3 ", 3)],
)
def test_a_whole_number_is_its_value_up_to_the_maximum_and_anything_else_none(value, expected):
    assert whole_number(value, 7, 100) == expected
