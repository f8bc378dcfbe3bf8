"""Ranking: the engines' order moved a bounded number of places by evidence, every part
explained, content farms never above a primary source, ties that never depend on arrival."""

from __future__ import annotations

import math
import random

from tamis.models import RawHit
from tamis.pipeline.filter import filter_candidates
from tamis.pipeline.merge import merge
from tamis.pipeline.query import parse_query
from tamis.pipeline.rank import Ranked, decay, rank
from tamis.pipeline.relevance import terms, text_match
from tamis.pipeline.rules import Rules
from tamis.settings import load_config

POLICY = load_config(None).config.policy


def hit(url: str, title: str, engines: dict[str, int], line: str = "searxng",
        snippet: str = "some text") -> RawHit:
    return RawHit(url=url, title=title, snippet=snippet, line=line,
                  engines=[f"{line}:{e}" for e in engines], positions=list(engines.values()))


def ranked(hits: list[RawHit], query: str, policy=POLICY) -> list[Ranked]:
    candidates, _ = merge([(h, 0, 1.0) for h in hits],
                          tracking_params=policy.normalise.tracking_params, max_chars=400)
    kept, _ = filter_candidates(candidates, Rules(policy), query)
    return rank(kept, query, policy.ranking)


def urls(hits: list[RawHit], query: str, policy=POLICY) -> list[str]:
    return [r.candidate.url for r in ranked(hits, query, policy)]


def test_a_content_farm_never_stands_above_a_primary_source() -> None:
    hits = [
        hit("https://medium.com/@x/thin-pool", "thin pool metadata thin pool metadata",
            {"bing": 1, "brave": 1, "duckduckgo": 1}),
        hit("https://forum.proxmox.com/threads/thin-pool.1/", "thin pool metadata", {"bing": 9}),
        hit("https://unknown.example/notes", "thin pool notes", {"bing": 2}),
    ]
    order = urls(hits, "thin pool metadata")
    assert order.index("https://forum.proxmox.com/threads/thin-pool.1/") < order.index(
        "https://medium.com/@x/thin-pool")


def test_a_content_farm_moves_a_bounded_number_of_places_when_no_primary_source_is_there(
        ) -> None:
    farm = hit("https://medium.com/@x/a", "alpha beta", {"bing": 1})
    others = [hit(f"https://site{i}.example/a", "alpha beta", {"bing": i}) for i in range(2, 12)]
    order = urls([farm, *others], "alpha beta")
    place = order.index("https://medium.com/@x/a") + 1
    assert 1 < place <= 1 + POLICY.ranking.demote_places + 1  # demoted, still in sight


def test_scores_are_explained_by_their_parts() -> None:
    item = ranked([hit("https://github.com/a/b", "thin pool", {"bing": 1, "brave": 2})],
                  "thin pool metadata error")[0]
    parts = item.parts(POLICY.ranking)
    w = POLICY.ranking
    # bing 1 and brave 2 at the engines' own positions: 1000 / log2(2) + 1000 / log2(3)
    assert parts.fusion == round(1000 + 1000 / math.log2(3), 4)
    assert parts.places["prefer"] == -w.prefer_places
    assert parts.places["multi_engine"] == -w.multi_engine_places
    assert parts.shift == max(-w.max_places, round(sum(parts.places.values()), 4))  # bounded
    moved = 1000 * decay(1 + parts.shift) + 1000 * decay(2 + parts.shift)
    assert parts.total == round(moved, 4) and parts.tier == "primary"


def test_the_positions_weight_falls_with_the_place_and_rises_past_the_first() -> None:
    assert decay(1) == 1 and round(decay(2), 4) == 0.6309 and round(decay(10), 4) == 0.2891
    assert decay(-4) > decay(0) > decay(0.5) > decay(1)  # moved past the first: still ordered
    assert decay(-100) <= 1 + 1 / (2 * math.log(2))  # one engine's vote stays bounded
    assert abs((decay(1 - 1e-6) - decay(1 + 1e-6)) / 2e-6 - 1 / (2 * math.log(2))) < 1e-4


def test_two_engines_agreeing_outrank_one_engine_whose_result_matches_better() -> None:
    shared = [hit("https://shared.example/page", "page", {"alpha": 2, "beta": 1}),
              hit("https://alpha.example/1", "merge engines page words", {"alpha": 1}),
              hit("https://beta.example/2", "page", {"beta": 2})]
    assert urls(shared, "merge engines page words")[0] == "https://shared.example/page"


def test_no_part_and_no_sum_of_penalties_moves_a_result_beyond_the_bound() -> None:
    w = POLICY.ranking.model_copy(update={"off_topic_places": 20, "no_snippet_places": 20,
                                          "dynamic_places": 20, "max_places": 4})
    policy = POLICY.model_copy(update={"ranking": w})
    hits = [hit("https://a.example/x?id=1", "nothing related", {"bing": 1}, snippet=""),
            *[hit(f"https://s{i}.example/p", "query words here", {"bing": i})
              for i in range(2, 12)]]
    items = ranked(hits, "query words", policy)
    worst = next(r for r in items if r.candidate.host == "a.example")
    assert all(abs(v) <= 4 for v in worst.places.values()) and worst.shift == 4
    assert worst.total == round(1000 / math.log2(1 + 4 + 1), 4)  # scored as position 5


def test_order_is_the_same_for_any_arrival_order() -> None:
    hits = [hit(f"https://site{i}.example/page", "same title", {"bing": 3}) for i in range(12)]
    expected = urls(hits, "title")
    for seed in range(5):
        shuffled = hits[:]
        random.Random(seed).shuffle(shuffled)
        assert urls(shuffled, "title") == expected
    assert expected == sorted(expected)  # a full tie falls back to the URL key


def test_text_match_prefers_the_results_holding_the_rare_query_word() -> None:
    hits = [hit("https://a.example/1", "thin pool metadata recovery", {"bing": 1}),
            hit("https://b.example/2", "pool party ideas", {"bing": 2}),
            hit("https://c.example/3", "cooking pasta", {"bing": 3})]
    candidates, _ = merge([(h, 0, 1.0) for h in hits], tracking_params=[], max_chars=400)
    matches = text_match(candidates, parse_query("thin pool metadata"))
    assert matches[0].bm25 == 1 > matches[1].bm25 > matches[2].bm25 == 0
    assert matches[2].off_topic and not matches[1].off_topic


def test_words_match_as_people_write_them() -> None:
    hits = [hit("https://kraft.example/jell-o", "Jell-O 100", {"bing": 1}, snippet=""),
            hit("https://a.example/v", "Google Videos", {"bing": 2}, snippet=""),
            hit("https://b.example/h", "Hövelhof", {"bing": 3}, snippet=""),
            hit("https://c.example/x", "unrelated", {"bing": 4}, snippet="")]
    candidates, _ = merge([(h, 0, 1.0) for h in hits], tracking_params=[], max_chars=400)
    matches = text_match(candidates, parse_query("jello video hovelhof"))
    assert [m.bm25 > 0 for m in matches] == [True, True, True, False]


def test_a_query_in_an_unspaced_script_matches_by_character_pairs() -> None:
    assert terms(parse_query("餐具英语")) == ["具英", "英语", "餐具"]
    hits = [hit("https://a.example/1", "各种餐具的英文名称", {"bing": 1}),
            hit("https://b.example/2", "餐具英语怎么说", {"bing": 2}),
            hit("https://c.example/3", "天气预报", {"bing": 3})]
    candidates, _ = merge([(h, 0, 1.0) for h in hits], tracking_params=[], max_chars=400)
    matches = text_match(candidates, parse_query("餐具英语"))
    assert not matches[0].off_topic and not matches[1].off_topic and matches[2].off_topic


def test_a_page_in_another_alphabet_is_not_off_topic() -> None:
    hits = [hit("https://en.example/volt", "Volt Bulgaria - Wikipedia", {"bing": 1}),
            hit("https://fr.example/volt", "Volt Bulgarie", {"bing": 2}),
            hit("https://bg.example/volt", "ВОЛТ – Уикипедия", {"bing": 3})]
    candidates, _ = merge([(h, 0, 1.0) for h in hits], tracking_params=[], max_chars=400)
    assert not any(m.off_topic for m in text_match(candidates, parse_query("volt bulgaria")))


def test_line_weight_scales_that_lines_votes() -> None:
    heavy = hit("https://heavy.example/a", "same words", {"x": 1}, line="heavy")
    light = hit("https://light.example/a", "same words", {"x": 1}, line="light")
    candidates, _ = merge([(light, 0, 1.0), (heavy, 1, 3.0)],
                          tracking_params=[], max_chars=400)
    kept, _ = filter_candidates(candidates, Rules(POLICY), "words")
    items = rank(kept, "words", POLICY.ranking)
    assert [r.candidate.host for r in items] == ["heavy.example", "light.example"]
    assert items[0].fusion == 3000 and items[1].fusion == 1000


def test_a_site_query_keeps_the_engines_order_within_the_site() -> None:
    hits = [hit(f"https://news.example/{i}", "story", {"bing": i}) for i in range(1, 6)]
    assert urls(hits, "story site:news.example") == [f"https://news.example/{i}"
                                                     for i in range(1, 6)]
