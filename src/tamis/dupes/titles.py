"""Title measures: normalised words, version markers dropped, record numbers, run templates.

- `normalise_title`: casefolded words, punctuation dropped (identical titles compare equal);
- `core_title`: the title without version markers (`(2)`, `(v2)`, `- updated`, `(draft)`,
  `More on:`, `(follow-up)`, `(copy)`...), which say nothing about the subject;
- `record_numbers`: the numbers left in the core title; they identify a record (`SR-2023-052` is
  not `SR-2023-053`, `Q3` is not `Q4`), so two titles carrying different ones are two subjects;
- `title_similarity`: character-trigram Dice of two core titles;
- `title_template`: the title with dates, times, weekdays, run numbers, short hex or alphanumeric
  run ids and UUIDs masked, so one writer's runs share one template.
"""

from __future__ import annotations

import re

_NONWORD_RE = re.compile(r"[\W_]+")
_DIGITS_RE = re.compile(r"\d+")

_MARKER_WORDS = (
    r"copy|draft|final|wip|old|new|updated?|revised|edited|latest|follow[- ]?up|v\d{1,2}"
    r"|version \d{1,2}|rev(?:ision)? \d{1,2}|\d{1,2}"
)
_MARKERS = [
    re.compile(r"^\s*(?:more on|re|fwd?|follow[- ]?up|copy of|draft|updated?)\s*[:\-–—]\s*", re.I),
    re.compile(rf"\s*[(\[]\s*(?:{_MARKER_WORDS})\s*[)\]]\s*$", re.I),
    re.compile(
        r"\s*[-–—:,]\s*(?:copy|draft|final|updated?|revised|follow[- ]?up|v\d{1,2})\s*$", re.I
    ),
    re.compile(r"\s+(?:v\d{1,2}|copy|draft)\s*$", re.I),
]


def normalise_title(title: str) -> str:
    """Casefolded words of a title joined by single spaces (punctuation dropped)."""
    return _NONWORD_RE.sub(" ", title.casefold()).strip()


def core_title(title: str) -> str:
    """The normalised title with version markers dropped (repeatedly, from both ends)."""
    out = title.strip()
    while True:
        before = out
        for pattern in _MARKERS:
            stripped = pattern.sub("", out)
            if stripped.strip():
                out = stripped
        if out == before:
            return normalise_title(out)


def markers_dropped(title: str) -> bool:
    """True when `core_title` dropped something from this title."""
    return core_title(title) != normalise_title(title)


def record_numbers(title: str) -> tuple[int, ...]:
    """The numbers in the core title, in order; two titles about one record carry the same ones."""
    return tuple(int(d) for d in _DIGITS_RE.findall(core_title(title)))


def title_trigrams(normalised: str) -> frozenset[str]:
    """Character trigrams of a normalised title, padded so short titles still have some."""
    padded = f" {normalised} "
    return frozenset(padded[i : i + 3] for i in range(len(padded) - 2))


def dice(a: frozenset[str], b: frozenset[str]) -> float:
    """2 |a ∩ b| / (|a| + |b|), 1.0 for two empty sets."""
    if not a and not b:
        return 1.0
    return 2 * len(a & b) / (len(a) + len(b))


def title_similarity(a: str, b: str) -> float:
    """Trigram Dice similarity of two titles once version markers are dropped."""
    return dice(title_trigrams(core_title(a)), title_trigrams(core_title(b)))


_MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_ORD = r"(?:st|nd|rd|th)?"
_WEEKDAYS = r"mon|tues?|wed|thu(?:rs?)?|fri|sat|sun"
_TEMPLATE_MASKS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(pattern, re.I), replacement)
    for pattern, replacement in [
        (r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", "<id>"),
        (
            r"\b\d{4}-\d{1,2}-\d{1,2}[t ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:z|[+-]\d{2}:?\d{2})?",
            "<date> <time>",
        ),
        (rf"\b\d{{1,2}}{_ORD}\s+of\s+(?:{_MONTHS})\b(?:,?\s+\d{{4}}\b)?", "<date>"),
        (r"\b\d{4}[-/.]\d{1,2}[-/.]\d{1,2}\b", "<date>"),
        (r"\b\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}\b", "<date>"),
        (rf"\b\d{{1,2}}{_ORD}\s+(?:{_MONTHS})\.?,?\s+\d{{4}}\b", "<date>"),
        (rf"\b(?:{_MONTHS})\.?\s+\d{{1,2}}{_ORD},?\s+\d{{4}}\b", "<date>"),
        (rf"\b(?:{_MONTHS})\.?\s+\d{{4}}\b", "<date>"),
        (rf"\b\d{{1,2}}{_ORD}\s+(?:{_MONTHS})\b", "<date>"),
        (rf"\b(?:{_MONTHS})\.?\s+\d{{1,2}}{_ORD}\b", "<date>"),
        (r"\b\d{4}-(?:w\d{1,2}|q[1-4]|\d{2})\b", "<date>"),
        (r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]\.?m\.?)?(?:\s?utc|z)?\b", "<time>"),
        (r"\b\d{1,2}\s?[ap]\.?m\b\.?", "<time>"),
        (r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b", "<day>"),
        # A weekday's short name beside a date (`Wed 1 May`, `1 May (Wed)`); alone, `Sun` is a
        # word.
        (rf"\b(?:{_WEEKDAYS})\b\.?(?=,?\s*<date>)", "<day>"),
        (rf"(?<=<date>)(,?\s*\(?)(?:{_WEEKDAYS})\b\.?", r"\1<day>"),
        (r"\b\d+(?:st|nd|rd|th)\b", "<n>"),  # a counter or a day: `3rd run`
        # Run ids: hex of 6+ characters, or 5+ letters and digits mixed (`3f9a2c`, `r7x9k2`).
        (r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{6,}\b", "<id>"),
        (r"\b(?=[a-z]*\d)(?=\d*[a-z])[a-z0-9]{5,}\b", "<id>"),
        (r"\d+", "<n>"),
    ]
]


def title_template(title: str) -> str:
    """The title with dates, times, weekdays, run numbers and ids masked, casefolded.

    >>> title_template("Daily digest 2024-05-01 06:00 (run #41)")
    'daily digest <date> <time> (run #<n>)'
    """
    out = title
    for pattern, replacement in _TEMPLATE_MASKS:
        out = pattern.sub(replacement, out)
    return " ".join(out.casefold().split())
