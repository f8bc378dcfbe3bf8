"""Planted instructions: sentences of page text addressed to an AI, flagged (or cut).

The phrases are data (``data/injection_phrases.txt``): a sentence is flagged when it holds
a ``[strong]`` phrase ("ignore previous instructions", "do not tell the user"...) or an
``[override]`` phrase ("you are now", "system prompt", "disregard"...) together with an
``[addressee]`` ("AI", "assistant", "LLM", "agent"...). Deterministic, case-insensitive.

``find`` gives one ``Flag`` per flagged sentence with its offset in the text; ``drop``
replaces every paragraph holding one by ``[removed: text addressed to AI]`` (policy
``extraction.injections: drop``; the default ``flag`` leaves the text as it is: articles
about prompt injection quote such sentences).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources

KIND = "instructions_to_ai"
MARKER = "[removed: text addressed to AI]"
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|$)", re.M)


@dataclass(frozen=True)
class Phrases:
    addressee: re.Pattern[str]
    strong: re.Pattern[str]
    override: re.Pattern[str]


@dataclass(frozen=True)
class Flag:
    """One flagged sentence: where it starts in the text, how long it is, what it says."""

    kind: str
    offset: int
    length: int
    text: str

    def as_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "offset": self.offset, "length": self.length,
                "text": self.text}


def parse_phrases(source: str) -> Phrases:
    """The three sections of a phrase file, each compiled into one pattern."""
    sections: dict[str, list[str]] = {"addressee": [], "strong": [], "override": []}
    current: list[str] | None = None
    for number, raw in enumerate(source.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            name = line[1:-1]
            if name not in sections:
                raise ValueError(f"line {number}: unknown section [{name}]")
            current = sections[name]
            continue
        if current is None:
            raise ValueError(f"line {number}: a phrase before any [section]")
        re.compile(line)
        current.append(line)
    compiled = {name: re.compile("|".join(f"(?:{p})" for p in lines) or r"(?!x)x", re.I)
                for name, lines in sections.items()}
    return Phrases(**compiled)


@functools.cache
def default_phrases() -> Phrases:
    text = resources.files("tamis.extract").joinpath("data/injection_phrases.txt").read_text(
        encoding="utf-8")
    return parse_phrases(text)


def is_addressed_to_ai(sentence: str, phrases: Phrases | None = None) -> bool:
    phrases = phrases or default_phrases()
    if phrases.strong.search(sentence):
        return True
    return bool(phrases.override.search(sentence) and phrases.addressee.search(sentence))


def find(text: str, phrases: Phrases | None = None) -> list[Flag]:
    """Every flagged sentence of ``text``, in order."""
    phrases = phrases or default_phrases()
    if not (phrases.strong.search(text) or phrases.override.search(text)):
        return []
    flags = []
    for match in _SENTENCE.finditer(text):
        sentence = match.group(0)
        if is_addressed_to_ai(sentence, phrases):
            lead = len(sentence) - len(sentence.lstrip())
            body = sentence.strip()
            flags.append(Flag(KIND, match.start() + lead, len(body), body[:300]))
    return flags


def drop(text: str, flags: list[Flag]) -> tuple[str, list[Flag]]:
    """The text with every paragraph holding a flag replaced by ``MARKER``; the flags
    re-pointed at their markers."""
    if not flags:
        return text, []
    spans: list[tuple[int, int]] = []
    for flag in flags:
        start = text.rfind("\n\n", 0, flag.offset)
        start = 0 if start < 0 else start + 2
        end = text.find("\n\n", flag.offset + flag.length)
        end = len(text) if end < 0 else end
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            spans.append((start, end))
    out: list[str] = []
    moved: list[Flag] = []
    last = 0
    for start, end in spans:
        out.append(text[last:start])
        offset = sum(map(len, out))
        for flag in flags:
            if start <= flag.offset < end:
                moved.append(Flag(flag.kind, offset, len(MARKER), flag.text))
        out.append(MARKER)
        last = end
    out.append(text[last:])
    return "".join(out), moved
