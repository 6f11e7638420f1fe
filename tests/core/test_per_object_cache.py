"""core.per_object_cache: what is worked out from an object is kept exactly while the object lives."""

from __future__ import annotations

import gc
import threading

from core.per_object_cache import WhileAlive


class Owner:
    """Any object that can be weakly referred to (a campaign, in the product)."""


def test_a_value_is_given_only_for_the_very_object_it_was_kept_for():
    kept = WhileAlive(most=10)
    first, second = Owner(), Owner()
    kept.put("line", first, "fingerprint")
    assert kept.get("line", first) == "fingerprint"
    assert kept.get("line", second) is None
    assert kept.get("other line", first, default="none") == "none"


def test_an_entry_goes_when_its_object_is_collected():
    kept = WhileAlive(most=10)
    owners = [Owner() for _ in range(5)]
    for number, owner in enumerate(owners):
        kept.put(number, owner, f"value {number}")
    assert len(kept) == 5
    del owners[1:4]
    gc.collect()
    assert len(kept) == 2
    assert kept.get(0, owners[0]) == "value 0" and kept.get(4, owners[1]) == "value 4"


def test_an_earlier_owner_collected_does_not_take_the_later_owners_entry():
    kept = WhileAlive(most=10)
    earlier, later = Owner(), Owner()
    kept.put("line", earlier, "old")
    kept.put("line", later, "new")
    del earlier
    gc.collect()
    assert kept.get("line", later) == "new"


def test_an_owner_in_a_reference_cycle_is_forgotten_when_the_collector_frees_it():
    kept = WhileAlive(most=10)
    owner = Owner()
    owner.myself = owner
    kept.put("line", owner, "value")
    del owner
    assert len(kept) == 1  # a cycle waits for the collector
    gc.collect()
    assert len(kept) == 0


def test_past_the_cap_everything_is_forgotten_at_once_and_kept_again_from_there():
    kept = WhileAlive(most=3)
    owners = [Owner() for _ in range(4)]
    for number, owner in enumerate(owners):
        kept.put(number, owner, number)
    assert len(kept) == 1 and kept.get(3, owners[3]) == 3
    kept.put(3, owners[3], "again")  # a key kept already replaces its entry, whatever the count
    assert len(kept) == 1


def test_owners_collected_in_other_threads_while_values_are_kept_lose_nothing_else():
    kept = WhileAlive(most=100_000)
    lasting = [Owner() for _ in range(50)]
    for number, owner in enumerate(lasting):
        kept.put(("lasting", number), owner, number)

    def churn(thread: int) -> None:
        for number in range(2_000):
            kept.put((thread, number), Owner(), number)  # collected at once, taking its entry

    threads = [threading.Thread(target=churn, args=(thread,)) for thread in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    gc.collect()
    assert len(kept) == 50
    assert [kept.get(("lasting", number), owner) for number, owner in enumerate(lasting)] == list(range(50))
