"""No key value ever reaches output: notes, answers, logs, stdout/stderr, exception text."""

from __future__ import annotations

import logging

import httpx
from loopback import Reply, Seen
from watched_store import WatchedStore

from tamis.backends.registry import make_adapter
from tamis.pipeline.fanout import describe_error, scrub
from tamis.policy.schema import LineConfig

SECRETS = {
    "TAVILY_KEY_1": "tvly-SECRET-aaaa-1111",
    "TAVILY_KEY_2": "tvly-SECRET-bbbb-2222",
    "BRAVE_API_KEY": "BSA-SECRET-cccc-3333",
    "EXA_API_KEY": "exa-SECRET-dddd-4444",
    "SERPER_API_KEY": "serper-SECRET-eeee-5555",
    "GENERIC_KEY": "gen-SECRET-ffff-6666",
    "FIRECRAWL_API_KEY": "fc-SECRET-gggg-7777",
}


def echo_key(status: int):
    """An answer that quotes the key it received back (a hostile or careless provider)."""

    def reply(seen: Seen) -> Reply:
        sent = seen.header("authorization") or seen.header("x-api-key") or seen.header(
            "x-subscription-token") or ""
        return Reply(status=status, json={"error": f"bad key {sent}", "detail": sent},
                     content_type="application/json")

    return reply


def test_no_secret_in_any_captured_output(server, run, capfd, caplog):
    caplog.set_level(logging.DEBUG)  # every logger: tamis, httpx, httpcore
    server.route("/search", echo_key(429))                      # tavily: both keys rest
    server.route("/res/v1/web/search", echo_key(401))           # brave
    server.route("/exa/search", echo_key(500))                  # exa
    server.route("/serper/search", echo_key(200))               # serper: echo in a 200
    server.route("/generic", lambda s: Reply(body=b"<html>" + (s.header("authorization") or
                                                               "").encode(),
                                             content_type="text/html"))
    server.route("/v1/search", Reply(hang=True))                # firecrawl: deadline
    lines = [
        LineConfig(name="tavily", base_url=server.url,
                   credentials=["TAVILY_KEY_1", "TAVILY_KEY_2"]),
        LineConfig(name="brave", base_url=server.url),
        LineConfig(name="exa", base_url=server.url + "/exa"),
        LineConfig(name="serper", base_url=server.url + "/serper"),
        LineConfig(name="gen", base_url=server.url, search_path="/generic",
                   api_key_env="GENERIC_KEY"),
        LineConfig(name="firecrawl", base_url=server.url, api_key_env="FIRECRAWL_API_KEY"),
        LineConfig(name="down", type="tavily", base_url="http://127.0.0.1:9",
                   api_key_env="TAVILY_KEY_1"),
    ]
    store = WatchedStore()
    answers = run([make_adapter(x) for x in lines], "q", env=SECRETS, store=store, timeout=1.0,
                  cache_ttl=60)
    statuses = {a.line: a.status for a in answers}
    # On a loaded machine the hanging line's connect can time out before the deadline does:
    # then it fails on a timed-out key instead of timing out as a line; either way it hung.
    hung = next(a for a in answers if a.line == "firecrawl")
    if hung.status == "failed":
        assert any("timed out" in n.message for n in hung.notes), hung.notes
        statuses["firecrawl"] = "timeout"
    assert statuses == {"tavily": "failed", "brave": "failed", "exa": "failed",
                        "serper": "empty", "gen": "failed", "firecrawl": "timeout",
                        "down": "failed"}
    # The keys really were sent (so the test would catch a leak).
    sent = " ".join(str(s.headers) for s in server.seen)
    assert all(v in sent for k, v in SECRETS.items() if k != "FIRECRAWL_API_KEY")

    # A second run: every line now has resting keys or a cache entry; more notes to check.
    answers += run([make_adapter(x) for x in lines], "q", env=SECRETS, store=store,
                   timeout=1.0, cache_ttl=60)
    out, err = capfd.readouterr()
    captured = "\n".join([
        out, err, caplog.text,
        *(a.model_dump_json() for a in answers),
        *(repr(r.__dict__) for r in caplog.records),
        *(v.decode("utf-8", "replace") for ns in ("rest", "answers", "rotation")
          for v in store.entries(ns).values()),
    ])
    assert "HTTP Request" in caplog.text  # httpx did log its requests
    for name, value in SECRETS.items():
        assert value not in captured, f"{name}'s value leaked"
        assert value[-9:] not in captured, f"part of {name}'s value leaked"
    assert "TAVILY_KEY_1 rests until" in captured  # names are shown, values never


def test_results_that_echo_the_key_are_dropped(server, run):
    """A provider that quotes the request back inside its results (title, a percent-encoded
    URL, a base64 snippet): those results never reach the answer or the cache."""
    import base64
    from urllib.parse import quote

    key = SECRETS["GENERIC_KEY"]
    server.route("/generic", Reply(json={"results": [
        {"url": "https://a.example/echo", "title": f"you sent {key}"},
        {"url": f"https://b.example/?k={quote(key, safe='')}", "title": "b"},
        {"url": "https://c.example/", "title": "c",
         "content": base64.b64encode(f"Bearer {key}".encode()).decode()},
        {"url": "https://d.example/page", "title": "a real result"}]}))
    line = LineConfig(name="gen", base_url=server.url, search_path="/generic",
                      api_key_env="GENERIC_KEY")
    store = WatchedStore()
    [answer] = run([make_adapter(line)], "q", env=SECRETS, store=store, cache_ttl=60)
    assert [h.url for h in answer.hits] == ["https://d.example/page"]
    assert "3 result(s) holding this line's key were dropped" in str(answer.notes)
    stored = " ".join(v.decode() for v in store.entries("answers").values())
    assert "d.example" in stored and "a.example" not in stored


def test_scrub_removes_keys_query_strings_and_passwords():
    text = ("GET https://api.example.com/search?api_key=abc123SECRET&q=x failed; "
            "proxy http://user:pa55word@proxy:8080/ refused; key abc123SECRET")
    cleaned = scrub(text, ["abc123SECRET"])
    assert "abc123SECRET" not in cleaned and "pa55word" not in cleaned
    assert "https://api.example.com/search?…" in cleaned
    assert "http://***@proxy:8080/" in cleaned


def test_httpx_exception_text_with_a_keyed_url_is_scrubbed():
    request = httpx.Request("GET", "https://api.example.com/s?key=zzzSECRETzzz")
    response = httpx.Response(500, request=request)
    try:
        response.raise_for_status()
    except httpx.HTTPStatusError as exc:
        assert "zzzSECRETzzz" in str(exc)  # httpx quotes the URL...
        message = describe_error(exc, [])
    assert "zzzSECRETzzz" not in message  # ...we do not
    assert message.startswith("HTTPStatusError: Server error '500 Internal Server Error'")


def test_key_repr_never_shows_the_value():
    from tamis.backends.keys import Key

    key = Key("TAVILY_KEY_1", "tvly-SECRET-aaaa-1111")
    assert "SECRET" not in repr(key) and "SECRET" not in str(key)
