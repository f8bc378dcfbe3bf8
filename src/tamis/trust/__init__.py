"""Trust: keeping a ranking layer honest.

- ``health``: ask every configured line once (reachable, latency, key accepted, answer
  shape, SearXNG JSON output and engines it reports unresponsive, resting keys);
- ``guard``: the ranking-quality guard (no demoted host in the top N, a demoted host never
  above a real result, banned hosts never returned, at least one result);
- ``recording``: freeze every line's answers to a folder, and replay them offline;
- ``check``: ``tamis check``, all of the above with one PASS/FAIL verdict;
- ``view``: ``tamis compare``, raw backend order beside tamis order.

See docs/trust.md.
"""
