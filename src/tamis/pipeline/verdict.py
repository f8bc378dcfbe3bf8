"""What the policy says of one URL (``Verdict``), and the compiled pieces of policy the rules
read it from (``rules.Rules`` makes them). NamedTuples: a dataclass costs 0.5-1 ms to create at
import, in every CLI process."""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from tamis.models import SourceType
from tamis.policy.schema import IntentExceptions


class Lifted(NamedTuple):
    """The non-answer rules one intent lifts (``policy.intent.<intent>``), compiled."""

    host_root: bool
    hosts: frozenset[str]
    path_patterns: frozenset[str]
    prefer: bool = True

    @classmethod
    def of(cls, exc: IntentExceptions) -> Lifted:
        return cls(exc.host_root, frozenset(h.lower() for h in exc.hosts),
                   frozenset(exc.path_patterns), exc.prefer)


NOTHING_LIFTED = Lifted(False, frozenset(), frozenset())


class Verdict(NamedTuple):
    """What the policy says of one URL. ``drop`` is a reason or None."""

    drop: str | None
    demoted: str | None  # the rule that demotes it, e.g. "demote_domains:medium.com"
    preferred: str | None  # the prefer_domains entry it matched
    source_type: SourceType
    named: bool = False  # the query names this site ("logitech" -> logitech.com)
    named_part: bool = False  # ... or a part of its name ("John McCain" -> mccain2000.com)
    prefer_counts: bool = True  # prefer_bonus applies (policy.intent.<intent>.prefer)
    kept_by: str | None = None  # the intent exception that kept it, e.g. "definitional: hosts"

    @property
    def action(self) -> str:
        if self.drop:
            return "DROP"
        if self.demoted:
            return "DEMOTE"
        if self.preferred:
            return "PREFER"
        return "KEEP"


class HostFacts(NamedTuple):
    """What the policy says of a host alone, worked out once per host and search."""

    listed: str | None  # the non_answer.hosts entry it matches
    preferred: str | None
    demoted_by: str | None
    kinds: frozenset[str]  # source types its host rules give
    first_kind: int  # index in Rules.type_rules of the first of them (len: none)
    domain: str  # its registrable domain


@lru_cache(maxsize=4096)
def _verdict(drop: str | None, demoted: str | None, preferred: str | None, kind: SourceType,
             named: bool, named_part: bool, prefer_counts: bool, kept_by: str | None
             ) -> Verdict:
    """Verdicts are frozen and most are alike: one object for each distinct verdict."""
    return Verdict(drop=drop, demoted=demoted, preferred=preferred, source_type=kind,
                   named=named, named_part=named_part, prefer_counts=prefer_counts,
                   kept_by=kept_by)
