"""Kubernetes quantities read and written back the way Kueue and kubectl print them."""

from __future__ import annotations

from decimal import Decimal

from core.quantities import format_quantity, parse_quantity


def test_parse_quantity_reads_suffixes_exponents_and_refuses_anything_else():
    assert parse_quantity("8Gi") == 8 * 2**30
    assert parse_quantity("50m") == Decimal("0.05")
    assert parse_quantity("1e3") == 1000
    assert parse_quantity(4) == 4
    assert [parse_quantity(v) for v in ("lots", "8Gb", True, None, "1" * 41)] == [None] * 5


def test_format_quantity_keeps_whole_numbers_whole():
    cases = [
        ("memory", "200Gi", "200Gi"),
        ("memory", "10Gi", "10Gi"),
        ("memory", "1.5Gi", "1536Mi"),
        ("storage", "100Mi", "100Mi"),
        ("memory", "1500", "1500"),
        ("cpu", "10", "10"),
        ("cpu", "1e3", "1000"),
        ("cpu", "0.5", "500m"),
        ("nvidia.com/gpu", "2", "2"),
    ]
    assert [format_quantity(resource, parse_quantity(text)) for resource, text, _ in cases] == [
        expected for _, _, expected in cases
    ]
