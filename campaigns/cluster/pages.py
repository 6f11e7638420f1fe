"""A page of a Kubernetes list, decoded one item at a time.

A page is `{"kind": ..., "metadata": {...}, "items": [...]}` with up to 500 items. `json.loads` makes
every item of it at once: 500 pods with their `managedFields` are some 150 000 small objects alive
together, for a moment, while the informer keeps what it needs of them. Python's allocator takes
fresh 1 MiB arenas for such a burst, and an arena goes back to the system only once every object in
it is gone: the few objects kept from the burst, and whatever other threads made meanwhile, hold
them. The soak saw the worker's RSS step up by 10-16 MiB at each window of relists and stay there.

Here each item is decoded and handed to `transform` before the next is read, so what a page costs at
its peak is its text, the items kept so far, and one item whole. The standard library's decoder reads
every value; only the punctuation of the page's own object and of its `items` array is read here.
"""

from __future__ import annotations

import json
import re

_decoder = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


def decode(text: str, transform=None) -> tuple[dict, list]:
    """(the page's other fields, its items each passed through `transform` as decoded). Items that are
    not objects are left out. Raises ValueError, as `json.loads` does, for text that is not one JSON
    object."""
    reader = _Reader(text)
    fields: dict = {}
    items: list = []
    reader.expect("{")
    if not reader.next_is("}"):
        while True:
            key = reader.value()
            if not isinstance(key, str):
                raise ValueError(f"a key that is not a string at {reader.at}")
            reader.expect(":")
            if key == "items" and reader.next_is("["):
                items = _items(reader, transform)  # a second "items" replaces the first, as with json.loads
            else:
                fields[key] = reader.value()
            if not reader.next_is(","):
                reader.expect("}")
                break
    reader.end()
    return fields, items


def _items(reader: _Reader, transform) -> list:
    """The objects of the `items` array whose "[" was just read, each transformed before the next is read."""
    items: list = []
    if reader.next_is("]"):
        return items
    while True:
        item = reader.value()
        if isinstance(item, dict):
            items.append(transform(item) if transform else item)
        del item
        if not reader.next_is(","):
            reader.expect("]")
            return items


class _Reader:
    def __init__(self, text: str):
        self.text = text
        self.at = 0

    def _skip(self) -> None:
        self.at = _SPACE.match(self.text, self.at).end()

    def next_is(self, char: str) -> bool:
        """Whether `char` comes next (after any space); it is read if so."""
        self._skip()
        if self.text.startswith(char, self.at):
            self.at += 1
            return True
        return False

    def expect(self, char: str) -> None:
        if not self.next_is(char):
            raise ValueError(f"expected {char!r} at {self.at}")

    def value(self):
        self._skip()
        found, self.at = _decoder.raw_decode(self.text, self.at)  # JSONDecodeError is a ValueError
        return found

    def end(self) -> None:
        self._skip()
        if self.at != len(self.text):
            raise ValueError(f"extra data at {self.at}")
