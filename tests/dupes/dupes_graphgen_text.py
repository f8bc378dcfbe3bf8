"""Text and rows for the generated graph (`dupes_graphgen.py`): a Zipf vocabulary, bodies,
titles, edits into a similarity range, and the answer key's bookkeeping."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

EPOCH_2024 = 1_704_067_200  # 2024-01-01T00:00:00Z
DAY = 86400.0
HOUR = 3600.0
VERDICTS = ("WRITER-DEFECT", "SAFE-MERGE", "HUMAN-DECISION")


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    consonants, vowels = "bcdfghjklmnprstvwz", "aeiou"
    words: set[str] = set()
    while len(words) < size:
        n = rng.randint(2, 4)
        words.add("".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(n)))
    vocab = sorted(words)
    rng.shuffle(vocab)  # frequency rank must not follow spelling
    return vocab


def shingle_jaccard(a: str, b: str, size: int = 3) -> float:
    """Word-shingle Jaccard, computed here independently of the package (for the answer key)."""

    def grams(text: str) -> set[tuple[str, ...]]:
        words = "".join(c if c.isalnum() else " " for c in text.casefold()).split()
        return {tuple(words[i : i + size]) for i in range(max(1, len(words) - size + 1))}

    x, y = grams(a), grams(b)
    return len(x & y) / len(x | y) if x and y else 0.0



class GraphText:
    """Rows for an RA-H OS database plus the answer key (`planted`, `negatives`)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.vocab = _vocabulary(self.rng, 20_000)
        weights = [1.0 / (rank + 1) ** 1.05 for rank in range(len(self.vocab))]
        self.cum = list(itertools.accumulate(weights))
        self.title_vocab = self.vocab[60:]
        tweights = [1.0 / (rank + 1) ** 0.8 for rank in range(len(self.title_vocab))]
        self.tcum = list(itertools.accumulate(tweights))
        self.rows: list[dict[str, Any]] = []
        self.next_id = 1
        self.planted: dict[str, list[list[int]]] = {v: [] for v in VERDICTS}
        self.kinds: dict[str, list[str]] = {v: [] for v in VERDICTS}  # the case of each group
        self.negatives: list[list[int]] = []
        self.negative_kinds: list[str] = []
        self.pair_similarity: dict[str, list[float]] = {}  # case -> planted body similarities
        self.used_subjects: set[str] = set()

    # -- text ------------------------------------------------------------------------------

    def words(self, k: int) -> list[str]:
        return self.rng.choices(self.vocab, cum_weights=self.cum, k=k)

    def sentence(self, n: int = 12) -> str:
        return " ".join(self.words(n)).capitalize() + "."

    def body(self, low: int = 60, high: int = 220) -> str:
        return " ".join(self.sentence() for _ in range(self.rng.randint(low, high) // 12))

    def tw(self, k: int = 1) -> list[str]:
        return self.rng.choices(self.title_vocab, cum_weights=self.tcum, k=k)

    def title(self) -> str:
        a, b, c = self.tw(3)
        return self.rng.choice(
            [
                f"Notes on {a} {b}",
                f"{a.capitalize()} {b} design review",
                f"{a.capitalize()} and {b} {c}",
                f"How {a} handles {b}",
                f"{a.capitalize()} {b} {c} checklist",
                f"Why {a} {b} fails under load",
            ]
        )

    def edited(self, text: str, low: float = 0.42, high: float = 0.78) -> str:
        """An edit of `text` (words replaced, a sentence added or dropped), similarity in range."""
        for _attempt in range(50):
            words = text.split()
            rate = self.rng.uniform(0.03, 0.17)
            for _ in range(int(len(words) * rate)):
                words[self.rng.randrange(len(words))] = self.words(1)[0]
            out = " ".join(words)
            if self.rng.random() < 0.5:
                out += " " + self.sentence(self.rng.randint(8, 20))
            if low <= shingle_jaccard(text, out) <= high:
                return out
        raise AssertionError("could not edit into the similarity range")

    def blend(self, shared: str, own_words: int) -> str:
        return shared + " " + " ".join(self.sentence() for _ in range(max(1, own_words // 12)))

    # -- rows ------------------------------------------------------------------------------

    def stamp(self, epoch: float) -> str:
        return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

    def add(
        self,
        title: str,
        body: str,
        epoch: float,
        meta: dict[str, Any] | None = None,
        dims: Iterable[str] = (),
    ) -> int:
        node_id = self.next_id
        self.next_id += 1
        self.rows.append(
            {
                "id": node_id,
                "title": title,
                "notes": body,
                "created_at": self.stamp(epoch),
                "metadata": meta or {},
                "dimensions": list(dims),
            }
        )
        return node_id

    def when(self) -> float:
        return EPOCH_2024 + self.rng.uniform(0, 300) * DAY

    def plant(self, verdict: str, kind: str, ids: list[int]) -> None:
        self.planted[verdict].append(ids)
        self.kinds[verdict].append(kind)

    def negative(self, kind: str, ids: list[int]) -> None:
        self.negatives.append(ids)
        self.negative_kinds.append(kind)
        if len(ids) >= 2:  # how hard the negative is: its first two bodies' similarity
            bodies = {r["id"]: r["notes"] for r in self.rows[-len(ids) - 2 :]}
            if ids[0] in bodies and ids[1] in bodies:
                self.note_similarity(kind, bodies[ids[0]], bodies[ids[1]])

    def note_similarity(self, kind: str, a: str, b: str) -> None:
        self.pair_similarity.setdefault(kind, []).append(shingle_jaccard(a, b))
