"""What the policy says of one URL (``Verdict``), and of its host alone (``HostFacts``)."""

from __future__ import annotations

from typing import NamedTuple

from tamis.models import SourceType


class Verdict(NamedTuple):
    """What the policy says of one URL. ``drop`` is a reason or None."""

    drop: str | None
    demoted: str | None  # the rule that demotes it, e.g. "demote_domains:medium.com"
    preferred: str | None  # the prefer_domains entry it matched
    source_type: SourceType
    named: bool = False  # the query names this site ("logitech" -> logitech.com)
    named_part: bool = False  # ... or a part of its name ("John McCain" -> mccain2000.com)
    prefer_counts: bool = True  # prefer_places applies (policy.intent.<intent>.prefer)
    # why a rule that would move or drop it did not: "query word 'login'", "last resort: ..."
    kept_by: str | None = None
    kind: str | None = None  # its page kind (policy.page_kinds): "shop", "login", "homepage"

    def moved_as(self, kind_places: dict[str, float]) -> float:
        """The places its page kind moves it down (0: no kind, asked for, or 0 places)."""
        return 0.0 if not self.kind or self.kept_by else kind_places.get(self.kind, 0.0)

    def action(self, kind_places: dict[str, float]) -> tuple[str, str | None]:
        """What the policy does with it, and the rule that says so (explain-url)."""
        if self.drop:
            return "DROP", self.drop
        if self.demoted:
            return "DEMOTE", self.demoted
        places = self.moved_as(kind_places)
        if places:
            return "DEMOTE", f"page_kind:{self.kind}, {places:g} places"
        if self.preferred:
            return "PREFER", f"prefer_domains:{self.preferred}"
        return "KEEP", None


class HostFacts(NamedTuple):
    """What the policy says of a host alone, worked out once per host."""

    listed: str | None  # the non_answer.hosts entry it matches
    preferred: str | None
    demoted_by: str | None
    kind: str | None  # the first page kind whose hosts it is on
    source_type: SourceType | None  # the first source type its host rules give
    domain: str  # its registrable domain
