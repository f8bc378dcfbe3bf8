"""The community-lists stage: what subscribed lists say, applied around merge, filter and rank.

Three small steps, each on the data the stage before it made (none reaches back):

1. ``rewrite`` (raw hits, before merge): a hit on a host a ``rewrite`` list names gets the
   list's ``rewrite_to`` host, path and query kept, so a copy whose path is the original's
   merges into the original (the copy stays as provenance in ``--explain``).
2. ``judge`` (after filter): a ``drop`` list drops with the reason ``list:<name>:<line>``; a
   ``demote`` list demotes with that reason; a ``prefer`` list prefers (a demote always
   wins over a prefer, as in the policy).
3. ``order`` (after rank): a copy never outranks its original. A result a list named (or
   rewrote) that ranks above an unlisted result it copies — the same title, on one of the
   list's ``copies`` sites when it names some — is moved to just below that original.

``--explain`` carries every list decision in ``explain.lists``.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from tamis.models import Dropped, Note, RawHit, Result
from tamis.pipeline.filter import Judged
from tamis.pipeline.urls import unwrap
from tamis.policy.schema import Config

if TYPE_CHECKING:  # the lists package is imported when a config subscribes to a list
    from tamis.policy.lists import ListMatch, ListMatcher, ListStatus

Hit = tuple[RawHit, int, float]
_FILLER = frozenset({"the", "a", "an", "to", "of", "in", "on", "for", "and", "or", "is",
                     "how", "what", "with", "do", "i", "it"})


def title_words(title: str) -> frozenset[str]:
    return frozenset(w for w in _word().findall(title.lower()) if w not in _FILLER)


@cache
def _word() -> re.Pattern[str]:  # compiled when a list is used (most searches use none)
    return re.compile(r"[a-z0-9]+")


@cache
def _separator() -> re.Pattern[str]:
    return re.compile(r"\s+(?:[-|:\u2013\u2014\u00b7]{1,2})\s+")


def same_title(copy: str, original: str) -> bool:
    """Copies keep the question's words and add their own site name: the smaller title's
    words (at least 3) are nearly all in the other."""
    a, b = title_words(copy), title_words(original)
    small = min(len(a), len(b))
    return small >= 3 and len(a & b) >= 0.8 * small


def title_key(title: str) -> str:
    """The words of a title's longest part, sorted: ``How do I X? - Stack Overflow`` and
    ``How do I X - newbedev`` give the same key. Empty for titles under 3 words."""
    longest = max(_separator().split(title), key=len)
    words = title_words(longest)
    return " ".join(sorted(words)) if len(words) >= 3 else ""


def _on(host: str, sites: tuple[str, ...]) -> bool:
    from tamis.policy.lists.matcher import host_and_parents

    return any(name in sites for name in host_and_parents(host))


class ListsStage:
    """The lists of one search and what they decided."""

    def __init__(self, matcher: ListMatcher | None, statuses: list[ListStatus]) -> None:
        self.matcher = matcher
        self.statuses = statuses
        self.rewritten: dict[str, list[tuple[str, ListMatch]]] = {}
        self.matched: dict[str, list[ListMatch]] = {}  # candidate key -> its matches
        self.explained: dict[str, list[str]] = {}  # result url -> lines
        self.plain: set[str] = set()  # raw URLs no list rewrote

    @classmethod
    def for_config(cls, config: Config, config_source: str | None = None) -> ListsStage:
        if not config.policy.lists:
            return cls(None, [])
        from tamis.policy.lists import load_lists
        base = None
        if config_source:
            path = Path(config_source)
            base = path.parent if path.is_file() else None
        matcher, statuses = load_lists(config.policy.lists, base)
        return cls(matcher, statuses)

    def notes(self) -> list[Note]:
        """A list that could not be used is a note in every answer (never a failure)."""
        return [Note(source=f"list:{s.name}", kind="info", message=s.message)
                for s in self.statuses if s.state not in ("ok", "disabled")]

    def _say(self, url: str, text: str) -> None:
        lines = self.explained.setdefault(url, [])
        if text not in lines:
            lines.append(text)

    # 1 ------------------------------------------------------------------------ rewrite
    def rewrite(self, hits: list[Hit]) -> list[Hit]:
        if self.matcher is None or not self.matcher.rewrites:
            return hits
        from tamis.policy.lists.matcher import strongest
        out = []
        for hit, order, weight in hits:
            try:
                parts = urlsplit(unwrap(hit.url.strip()))  # the page, not an engine's wrapper
                host = (parts.hostname or "").lower()
            except ValueError:
                self.plain.add(hit.url[:2000])
                out.append((hit, order, weight))
                continue
            bare = host[4:] if host.startswith("www.") and host.count(".") >= 2 else host
            query = f"?{parts.query}" if parts.query else ""
            matches = self.matcher.match(bare, parts.geturl(), (parts.path or "/") + query,
                                         parts.scheme.lower()) if bare else []
            best = strongest(matches, ("drop", "rewrite", "demote", "prefer"))
            if best is None or best.action != "rewrite" or not best.rewrite_to:
                self.plain.add(hit.url[:2000])
                out.append((hit, order, weight))
                continue
            url = urlunsplit((parts.scheme or "https", best.rewrite_to, parts.path,
                              parts.query, ""))
            self.rewritten.setdefault(url, []).append((parts.geturl(), best))
            out.append((hit.model_copy(update={"url": url}), order, weight))
        return out

    # 2 -------------------------------------------------------------------------- judge
    def judge(self, kept: list[Judged], dropped: list[Dropped]
              ) -> tuple[list[Judged], list[Dropped]]:
        if self.matcher is None:
            return kept, dropped
        from tamis.policy.lists.matcher import strongest
        out: list[Judged] = []
        for judged in kept:
            c = judged.candidate
            merged = " (merged into the original)" if self.plain.intersection(
                c.variants) else ""
            for variant in c.variants:
                for copy_url, m in self.rewritten.get(variant, ()):
                    self._say(c.url, f"{m.reason} rewrite: {copy_url} -> {c.url}{merged}")
            query = f"?{c.query}" if c.query else ""
            matches = self.matcher.match(c.host, c.url, c.path + query,
                                         c.url.split(":", 1)[0])
            matches = [m for m in matches if m.action != "rewrite"]
            if not matches:
                out.append(judged)
                continue
            self.matched[c.key] = matches
            for m in matches:
                self._say(c.url, f"{m.reason} {m.action}: {m.text}")
            best = strongest(matches, ("drop", "demote", "prefer"))
            verdict = judged.verdict
            if best is not None and best.action == "drop":
                dropped.append(Dropped(url=c.url, reason=best.reason, position=c.first_seen,
                                       title=c.title, engines=c.engines))
                continue
            if best is not None and best.action == "demote" and not verdict.demoted:
                verdict = verdict._replace(demoted=best.reason, preferred=None,
                                           source_type="content-farm")
            elif best is not None and best.action == "prefer" and not verdict.demoted \
                    and not verdict.preferred:
                verdict = verdict._replace(preferred=best.reason)
            out.append(Judged(c, verdict) if verdict is not judged.verdict else judged)
        return out, dropped

    # 3 -------------------------------------------------------------------------- order
    def _copy_sites(self, item: Any) -> tuple[tuple[str, ...], bool] | None:
        """(the sites the item copies, rewritten?) when a list names it a copy."""
        c = item.candidate
        rewritten = [v for v in c.variants if v in self.rewritten]
        if rewritten and not self.plain.intersection(c.variants):
            m = self.rewritten[rewritten[0]][0][1]
            return (m.rewrite_to or "",), True
        matches = [m for m in self.matched.get(c.key, ()) if m.action != "prefer"]
        if not matches:
            return None
        sites = tuple(s for m in matches for s in m.copies)
        return sites, False

    def order(self, ranked: list[Any]) -> list[Any]:
        """Move every copy that outranks its original to just below it.

        An original is found by its title's words in one dict (a copy keeps the question's
        title), then, for a list that names the sites it copies, among the results on those
        sites (the few that can be its original). Never every pair: 1,000 results stay
        cheap."""
        if self.matcher is None or not (self.matched or self.rewritten):
            return ranked
        copies = {id(r): self._copy_sites(r) for r in ranked}
        if not any(copies.values()):
            return ranked
        by_title: dict[str, int] = {}
        on_sites: dict[tuple[str, ...], list[int]] = {}
        for j, item in enumerate(ranked):
            key = title_key(item.candidate.title) if copies[id(item)] is None else ""
            if key:
                by_title.setdefault(key, j)
        below: dict[int, list[Any]] = {}
        moved: set[int] = set()
        for i, item in enumerate(ranked):
            about = copies[id(item)]
            if about is None:
                continue
            sites, rewritten = about
            c = item.candidate
            found = by_title.get(title_key(c.title) or "\0")
            if found is not None and sites and not _on(ranked[found].candidate.host, sites):
                found = None
            if found is None and sites:
                if sites not in on_sites:
                    on_sites[sites] = [j for j, o in enumerate(ranked) if copies[id(o)] is None
                                       and _on(o.candidate.host, sites)]
                for j in on_sites[sites]:
                    o = ranked[j].candidate
                    if o.key != c.key and (same_title(c.title, o.title)
                                           or (rewritten and o.path == c.path)):
                        found = j
                        break
            if found is None:
                continue
            o = ranked[found].candidate
            if found > i:
                below.setdefault(found, []).append(item)
                moved.add(i)
                self._say(c.url, f"{self._reason(c)} copy of {o.url}: sorted below it")
            else:
                self._say(c.url, f"{self._reason(c)} copy of {o.url}: ranks below it")
        if not moved:
            return ranked
        out: list[Any] = []
        for j, item in enumerate(ranked):
            if j not in moved:
                out.append(item)
                out.extend(below.get(j, ()))
        return out

    def _reason(self, c: Any) -> str:
        for variant in c.variants:
            if variant in self.rewritten:
                return self.rewritten[variant][0][1].reason
        matches = self.matched.get(c.key) or []
        return matches[0].reason if matches else "list"

    # explain ---------------------------------------------------------------------------
    def annotate(self, results: list[Result]) -> list[Result]:
        """Put each result's list decisions in ``explain.lists`` (with --explain)."""
        if not self.explained:
            return results
        out = []
        for r in results:
            lines = self.explained.get(r.url)
            if lines and r.explain is not None:
                explain = r.explain.model_copy(update={"lists": list(lines)})
                r = r.model_copy(update={"explain": explain})
            out.append(r)
        return out


def explain_lists(config: Config, config_source: str | None, host: str, url: str, path: str,
                  query: str) -> tuple[list[ListMatch], list[Note]]:
    """What the lists say of one URL (``tamis explain-url``), and the notes of lists that
    could not be read."""
    stage = ListsStage.for_config(config, config_source)
    if stage.matcher is None:
        return [], stage.notes()
    pq = path + (f"?{query}" if query else "")
    return stage.matcher.match(host, url, pq, url.split(":", 1)[0]), stage.notes()


def apply_to_verdict(action: str, reason: str | None, matches: list[ListMatch]
                     ) -> tuple[str, str | None]:
    """explain-url's action and reason once the lists are heard (as ``judge`` decides)."""
    from tamis.policy.lists.matcher import strongest

    best = strongest(matches, ("drop", "rewrite", "demote", "prefer"))
    if best is None or action == "DROP":
        return action, reason
    if best.action == "drop":
        return "DROP", best.reason
    if best.action == "rewrite":
        return "REWRITE", f"{best.reason} (to {best.rewrite_to})"
    if best.action == "demote" and action != "DEMOTE":
        return "DEMOTE", best.reason
    if best.action == "prefer" and action == "KEEP":
        return "PREFER", best.reason
    return action, reason
