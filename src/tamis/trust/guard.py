"""The ranking-quality guard: what must stay true of tamis's answers, query by query.

Config ``quality: {queries: [...], top_n: 3, banned_hosts: [...]}``. For each query, from
the full ranked answer (every kept result, not only the ``max_results`` an agent sees):

- ``no_results``: at least one result is returned;
- ``demoted_in_top_n``: no demoted host in the top N;
- ``demoted_outranks``: a demoted host never ranks above a primary source (a preferred host:
  our users' rule, "a content farm can never outrank a primary source"; against other results
  it moves down a bounded number of places, ``ranking.demote_places``);
- ``banned_host``: no banned host (or subdomain of one) is returned at all.

A host is *demoted* when its result's source type is ``content-farm``, or when its domain
is in ``policy.demote_domains`` of the config in effect OR of the built-in policy. The
built-in list is the reference because the guard exists to catch a policy that lost its
demote list: judged only by the policy in effect, an emptied list would look clean.

Every failure names the query, the host and its rank.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from tamis.models import Result, SearchResponse
from tamis.pipeline.urls import host_matches
from tamis.policy.loader import builtin_data
from tamis.policy.schema import Config

FailureKind = Literal["no_results", "demoted_in_top_n", "demoted_outranks", "banned_host"]


class GuardFailure(BaseModel):
    query: str
    kind: FailureKind
    host: str | None = None
    rank: int | None = None
    message: str


class TopRow(BaseModel):
    rank: int
    host: str
    source_type: str
    demoted: bool


class QueryVerdict(BaseModel):
    query: str
    status: str
    returned: int
    top: list[TopRow]
    failures: list[GuardFailure]

    @property
    def passed(self) -> bool:
        return not self.failures


class GuardReport(BaseModel):
    top_n: int
    banned_hosts: list[str]
    queries: list[QueryVerdict]
    skipped: str | None = None

    @property
    def failures(self) -> list[GuardFailure]:
        return [f for q in self.queries for f in q.failures]

    @property
    def passed(self) -> bool:
        return not self.failures


def demote_reference(config: Config) -> frozenset[str]:
    """The domains the guard treats as demoted: the config's list and the built-in one."""
    builtin = builtin_data().get("policy", {}).get("demote_domains") or []
    return frozenset(d.lower() for d in [*config.policy.demote_domains, *builtin])


def is_demoted(result: Result, demoted: frozenset[str]) -> bool:
    return result.source_type == "content-farm" or host_matches(result.host, demoted) is not None


def judge(query: str, response: SearchResponse, *, top_n: int, banned: frozenset[str],
          demoted: frozenset[str]) -> QueryVerdict:
    """The guard's verdict on one answer (``response`` ranked in full, with explain)."""
    results = response.results
    failures: list[GuardFailure] = []
    q = f'"{query}"'
    if not results:
        why = "; ".join(n.message for n in response.notes if n.source == "tamis") or (
            response.status)
        failures.append(GuardFailure(query=query, kind="no_results",
                                     message=f"{q}: no results ({why})"))
    flags = [is_demoted(r, demoted) for r in results]
    for result, flag in zip(results, flags, strict=True):
        if flag and result.rank <= top_n:
            failures.append(GuardFailure(
                query=query, kind="demoted_in_top_n", host=result.host, rank=result.rank,
                message=f"{q}: demoted host {result.host} at rank {result.rank} (top {top_n})"))
    for index, (result, flag) in enumerate(zip(results, flags, strict=True)):
        if not flag or result.rank <= top_n:
            continue  # in the top N it is already reported
        below = next((r for r, f in zip(results[index + 1:], flags[index + 1:], strict=True)
                      if not f and r.explain is not None and r.explain.tier == "primary"), None)
        if below is not None:
            failures.append(GuardFailure(
                query=query, kind="demoted_outranks", host=result.host, rank=result.rank,
                message=f"{q}: demoted host {result.host} at rank {result.rank} outranks"
                        f" {below.host} ({below.source_type}) at rank {below.rank}"))
    for result in results:
        entry = host_matches(result.host, banned)
        if entry is not None:
            failures.append(GuardFailure(
                query=query, kind="banned_host", host=result.host, rank=result.rank,
                message=f"{q}: banned host {result.host} returned at rank {result.rank}"
                        f" (banned_hosts: {entry})"))
    top = [TopRow(rank=r.rank, host=r.host, source_type=r.source_type, demoted=f)
           for r, f in zip(results[:top_n], flags[:top_n], strict=True)]
    return QueryVerdict(query=query, status=response.status, returned=len(results), top=top,
                        failures=failures)


def banned_set(config: Config) -> frozenset[str]:
    return frozenset(h.lower().strip().removeprefix("www.")
                     for h in config.quality.banned_hosts if h.strip())
