"""last_by_identity: the last result again for the very same object, computed for any other."""

from __future__ import annotations

from tamis.memo import last_by_identity


def test_the_same_object_is_answered_from_the_memo_an_equal_one_is_computed() -> None:
    calls: list[tuple[str, ...]] = []

    def count(words: tuple[str, ...]) -> int:
        calls.append(words)
        return len(words)

    remembered = last_by_identity(count)
    first = tuple(["a", "b"])
    assert remembered(first) == 2 and remembered(first) == 2
    assert len(calls) == 1
    equal = tuple(["a", "b"])
    assert equal is not first
    assert remembered(equal) == 2 and len(calls) == 2  # by identity, not by equality
    assert remembered(()) == 0 and remembered(first) == 2 and len(calls) == 4  # one entry
    assert remembered.__wrapped__ is count  # type: ignore[attr-defined]
