// tamis: the compare page. Vanilla JavaScript, no dependencies, nothing fetched from outside.
// Every text from a result goes through textContent, never innerHTML.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function link(url, text) {
    if (!/^https?:\/\//i.test(url)) return el("span", "", text || url);
    const a = el("a", "", text || url);
    a.href = url;
    a.rel = "noreferrer noopener";
    a.target = "_blank";
    return a;
  }

  function num(x) {
    return typeof x === "number" ? (Math.round(x * 100) / 100).toString() : "";
  }

  function setStatus(text, isError) {
    const status = $("status");
    status.textContent = text;
    status.classList.toggle("error", Boolean(isError));
  }

  // What tamis did with one raw row, in words (as `tamis compare` says it).
  function fateOf(row, byRank) {
    if (row.fate.startsWith("rank") && row.tamis_rank) {
      const result = byRank.get(row.tamis_rank);
      const parts = result && result.explain;
      if (result && (result.source_type === "content-farm" || (parts && parts.tier === "demoted"))) {
        const why = parts && parts.demote_reason ? " (" + parts.demote_reason + ")" : "";
        return { text: "demoted to rank " + row.tamis_rank + why, kind: "demoted" };
      }
      let move = "";
      if (row.moved > 0) move = " \u2191" + row.moved;
      else if (row.moved < 0) move = " \u2193" + -row.moved;
      else if (row.moved === 0) move = " =";
      return { text: "rank " + row.tamis_rank + move, kind: "ranked" };
    }
    if (row.fate.startsWith("dropped")) return { text: row.fate, kind: "dropped" };
    if (row.fate.startsWith("merged")) return { text: row.fate, kind: "merged" };
    return { text: row.fate, kind: "below" };
  }

  function openResult(rank) {
    const item = document.querySelector('#tamis li[data-rank="' + rank + '"]');
    if (!item) return;
    const details = item.querySelector("details");
    if (details) details.open = true;
    document.querySelectorAll("#tamis li.highlight").forEach((n) => n.classList.remove("highlight"));
    item.classList.add("highlight");
    item.scrollIntoView({ block: "nearest" });
  }

  function renderRaw(rows, byRank) {
    const list = $("raw");
    list.replaceChildren();
    for (const row of rows) {
      const fate = fateOf(row, byRank);
      const li = el("li", "raw-row " + fate.kind);
      li.dataset.position = row.position;
      li.append(el("span", "pos", row.position), el("span", "host", row.host),
                el("span", "fate " + fate.kind, fate.text), el("span", "url", row.url));
      li.title = row.engines.join(", ");
      if (row.tamis_rank) {
        li.classList.add("linked");
        li.addEventListener("click", () => openResult(row.tamis_rank));
      }
      list.append(li);
    }
  }

  function scoreTable(result, rawPosition) {
    const parts = result.explain || {};
    const table = el("table", "score");
    const rows = [["fusion", num(parts.fusion), "the engines' evidence at their own positions"]];
    for (const [part, places] of Object.entries(parts.places || {})) {
      rows.push([part, (places > 0 ? "+" : "") + num(places),
                 places > 0 ? "places down" : "places up"]);
    }
    rows.push(["shift", num(parts.shift || 0), "places moved, bounded"]);
    if (parts.demote_reason) rows.push(["demote", "", parts.demote_reason]);
    rows.push(["total", num(parts.total), "tier: " + (parts.tier || "")]);
    for (const [name, value, help] of rows) {
      const tr = el("tr");
      tr.append(el("th", "", name), el("td", "", value), el("td", "help", help));
      table.append(tr);
    }
    const box = el("div", "why");
    box.append(table);
    const where = el("p", "");
    where.append(link(result.url));
    box.append(where);
    const engines = Object.entries(result.positions || {})
      .map(([engine, pos]) => engine + " #" + pos).join(", ");
    box.append(el("p", "", "raw position " + rawPosition + "; engines: " + engines));
    if (result.snippet) box.append(el("p", "snippet", result.snippet));
    if (result.excerpt) {
      box.append(el("p", "", "excerpt (" + result.extraction + ")"));
      box.append(el("div", "excerpt", result.excerpt));
    } else if (result.extraction && result.extraction !== "skipped") {
      box.append(el("p", "", "extraction: " + result.extraction +
                    (result.extraction_detail ? " (" + result.extraction_detail + ")" : "")));
    }
    return box;
  }

  function renderTamis(results, tamisRows, returned) {
    const list = $("tamis");
    list.replaceChildren();
    const rawPosition = new Map(tamisRows.map((r) => [r.rank, r.raw_position]));
    for (const result of results) {
      if (result.rank === returned + 1) {
        list.append(el("li", "cutline", "an agent gets the results above (max_results " +
                       returned + "); the rest, below, is ranked for this view"));
      }
      const li = el("li", "result" + (result.rank > returned ? " cut" : ""));
      li.dataset.rank = result.rank;
      const details = el("details");
      const summary = el("summary");
      const type = el("span", "type " + result.source_type, result.source_type);
      summary.append(el("span", "rank", result.rank), el("span", "title", result.title || result.url), type);
      const meta = el("span", "meta", result.host + " \u00b7 score " + num(result.score) +
                      " \u00b7 " + result.engines.length + " engine(s)");
      summary.append(meta);
      details.append(summary, scoreTable(result, rawPosition.get(result.rank)));
      li.append(details);
      list.append(li);
    }
  }

  function renderDropped(dropped) {
    const list = $("dropped");
    list.replaceChildren();
    if (!dropped.length) list.append(el("li", "", "nothing was dropped"));
    for (const d of dropped) {
      const li = el("li");
      let host = d.url;
      try { host = new URL(d.url).host; } catch (e) { /* keep the raw text */ }
      li.append(el("span", "pos", "raw #" + d.position + " "), el("strong", "", host + " "),
                el("span", "reason", d.reason), el("span", "", " "), el("span", "url", d.url));
      list.append(li);
    }
  }

  function renderNotes(notes) {
    const list = $("notes");
    list.replaceChildren();
    for (const note of notes) {
      const li = el("li");
      li.append(el("span", "source", note.source + ": "), el("span", "", note.message));
      list.append(li);
    }
    $("notes-section").hidden = notes.length === 0;
  }

  function renderPolicy(policy) {
    if (!policy) return;
    $("policy-source").textContent = policy.source;
    $("policy-text").textContent = policy.text;
    $("policy-effective").textContent = policy.effective;
    const lists = $("policy-lists");
    lists.replaceChildren(...(policy.lists || []).map((line) => el("li", "", line)));
  }

  function render(data) {
    const response = data.response;
    const comparison = data.comparison;
    const byRank = new Map(response.results.map((r) => [r.rank, r]));
    renderRaw(comparison.raw, byRank);
    renderTamis(response.results, comparison.tamis, data.returned);
    renderDropped(response.dropped || []);
    renderNotes(response.notes || []);
    renderPolicy(data.policy);
    const lines = response.lines.map((l) => l.line + " " + l.status + " (" + l.results + ")").join(", ");
    $("summary").textContent = comparison.raw.length + " raw results from " + lines + " \u2192 " +
      comparison.tamis.length + " kept, " + comparison.dropped + " dropped, " + comparison.merged +
      " merged duplicates. An agent gets the top " + Math.min(data.returned, comparison.tamis.length) +
      ". (" + response.timing.total_seconds + " s)";
    $("view").hidden = false;
  }

  // A service started with TAMIS_TOKEN answers 401: ask for the token once, keep it for this
  // tab only (sessionStorage), and send it as a bearer header.
  async function apiFetch(url) {
    const headers = () => {
      const token = sessionStorage.getItem("tamis-token");
      return token ? { Accept: "application/json", Authorization: "Bearer " + token }
                   : { Accept: "application/json" };
    };
    let answer = await fetch(url, { headers: headers() });
    if (answer.status === 401) {
      const token = window.prompt("This tamis service needs its token (TAMIS_TOKEN):");
      if (token) {
        sessionStorage.setItem("tamis-token", token.trim());
        answer = await fetch(url, { headers: headers() });
      }
    }
    return answer;
  }

  async function run(query, extract) {
    const params = new URLSearchParams({ q: query });
    if (extract) params.set("extract", "1");
    history.replaceState(null, "", "?" + params.toString());
    $("go").disabled = true;
    setStatus("Searching\u2026");
    try {
      const answer = await apiFetch("/ui/compare?" + params.toString());
      const data = await answer.json().catch(() => ({ error: "HTTP " + answer.status }));
      if (!answer.ok) {
        setStatus(data.error || "HTTP " + answer.status, true);
        return;
      }
      render(data);
      setStatus(data.response.status === "ok" ? "" : "status: " + data.response.status,
                data.response.status !== "ok");
    } catch (err) {
      setStatus("the search could not run: " + err, true);
    } finally {
      $("go").disabled = false;
    }
  }

  async function loadPolicy() {
    try {
      const answer = await apiFetch("/ui/policy");
      if (answer.ok) renderPolicy(await answer.json());
    } catch (err) { /* the policy shows with the first comparison */ }
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("search").addEventListener("submit", (event) => {
      event.preventDefault();
      const query = $("q").value.trim();
      if (query) run(query, $("extract").checked);
    });
    const params = new URLSearchParams(location.search);
    loadPolicy();
    if (params.get("q")) {
      $("q").value = params.get("q");
      $("extract").checked = params.get("extract") === "1";
      run(params.get("q"), $("extract").checked);
    }
  });
})();
