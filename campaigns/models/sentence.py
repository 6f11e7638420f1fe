"""What a person reads, as the wording makes it: plain words first, the operator's detail and commands apart."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sentence:
    """What a person reads: plain words first, operator detail and commands apart.

    ``tone`` is one of ``ok``, ``info``, ``warn``, ``bad``, ``idle`` (matches the theme colours).
    """

    text: str
    detail: str = ""
    commands: tuple[str, ...] = ()
    tone: str = "info"

    def __str__(self) -> str:
        return self.text
