"use strict";
// The entry x configuration matrix and the capture view's texts. Built from the capture
// rows report.js already holds; rows are rendered a page at a time, so sorting 2,000 entries of 60
// configurations redraws one page. Every text from the bundle or a judge is inserted as text
// (textContent), never as markup.
(function () {
  var ORA = window.ORA;
  if (!ORA) return;
  var data = ORA.data, el = ORA.el, fmt = ORA.fmt, extras = data.extras || {};
  var PAGE = 50, LONG = 1200;
  var $ = function (id) { return document.getElementById(id); };
  var threshold = data.rubric.failure_below, scale = data.rubric.scale, range = scale[1] - scale[0];
  // A compare run's items have a winner, not an overall: no Spread column, no failure colours.
  var pairwise = data.rubric.kind === "compare";

  // Columns: the summary's configurations in table order, then any other a capture names.
  var columns = data.configurations.slice(), column = {};
  columns.forEach(function (name, k) { column[name] = k; });
  var entries = [], entryIndex = {}, byId = {};
  ORA.rows.forEach(function (r) {
    byId[r.id] = r.i;
    var key = r.id.slice(0, r.id.lastIndexOf("/"));
    if (!(r.configuration in column)) { column[r.configuration] = columns.length; columns.push(r.configuration); }
    var entry = entryIndex[key];
    if (entry === undefined) {
      entry = entryIndex[key] = entries.length;
      entries.push({ key: key, lower: key.toLowerCase(), family: r.family, order: entry, cells: [] });
    }
    entries[entry].cells[column[r.configuration]] = r;
  });

  function grades(r) { var x = extras[r.i]; return x && x.grades ? x.grades : null; }
  function gradeCounts(list) {
    var counts = {};
    list.forEach(function (g) { var word = g[1].split(" ")[0]; counts[word] = (counts[word] || 0) + 1; });
    return counts;
  }
  // The value a column sorts by: the overall; a scorecard (no overall) by its PASS and PARTIAL axes.
  function sortValue(r) {
    if (!r || r.status !== "scored") return null;
    var v = extras[r.i];
    if (pairwise) return v && v.compare ? (v.compare.winner === v.compare.first ? 1 : v.compare.winner === v.compare.second ? 0 : 0.5) : null;
    if (r.overall !== null && r.overall !== undefined) return r.overall;
    var g = grades(r);
    if (!g) return null;
    var c = gradeCounts(g);
    return (c.PASS || 0) + 0.5 * (c.PARTIAL || 0) - (r.failure === 1 ? 100 : 0);
  }
  entries.forEach(function (e) {
    var values = [];
    e.cells.forEach(function (r) { if (r && r.status === "scored" && r.overall !== null && r.overall !== undefined) values.push(r.overall); });
    e.spread = values.length >= 2 ? Math.max.apply(null, values) - Math.min.apply(null, values) : null;
    e.values = columns.map(function (_, k) { return sortValue(e.cells[k]); });
  });

  var shown = entries, page = 0, sortKey = "entry", sortDir = 1;

  function compare(x, y) {
    if (x === y) return 0;
    if (x === null || x === undefined) return 1;   // empty cells last, whichever direction
    if (y === null || y === undefined) return -1;
    return (x < y ? -1 : 1) * sortDir;
  }
  function apply() {
    var family = $("m-family").value, text = $("m-text").value.trim().toLowerCase();
    shown = entries.filter(function (e) {
      return (!family || e.family === family) && (!text || e.lower.indexOf(text) >= 0);
    });
    var key = sortKey;
    if (key === "entry") {
      if (sortDir < 0) shown = shown.slice().reverse();
    } else {
      shown = shown.slice().sort(function (a, b) {
        var c = key === "spread" ? compare(a.spread, b.spread) : compare(a.values[key], b.values[key]);
        return c || a.order - b.order;
      });
    }
    page = 0;
    render();
  }

  function shade(r) {
    if (!r) return "cell-none";
    if (r.status !== "scored") return "cell-skip";
    if (pairwise) return "cell-none";
    if (r.failure === 1) {
      return threshold !== null && r.overall !== null && r.overall < threshold - 0.2 * range ? "cell-fail-strong" : "cell-fail";
    }
    if (r.failure === 0) {
      return threshold !== null && r.overall !== null && r.overall >= threshold + 0.2 * range ? "cell-pass-strong" : "cell-pass";
    }
    return "cell-none";
  }
  function two(value) { return value === null || value === undefined ? "" : value.toFixed(2); }
  function cellText(r) {
    if (!r) return "\u2014";
    if (r.status !== "scored") return r.status;
    var g = grades(r);
    if (g && (r.overall === null || r.overall === undefined)) {
      var c = gradeCounts(g), words = [];
      ["PASS", "PARTIAL", "FAIL", "UNKNOWN", "N/A"].forEach(function (w) { if (c[w]) words.push(c[w] + " " + w.toLowerCase()); });
      return words.join(" · ");
    }
    var x = extras[r.i];
    if (x && x.compare) return winnerText(x.compare) + " · " + verdicts(x.compare);
    return two(r.overall);
  }

  // Each judge's verdict on a compare item: its winner when both orders agree, else a tie.
  function winnerText(c) { return c.winner === c.first || c.winner === c.second ? c.winner + " wins" : "tie"; }
  function verdicts(c) {
    return (c.judges || []).map(function (j) {
      return j[0].replace("Judge ", "") + " " + (j[2] ? (j[1] || "tie") : "tie (orders disagree)");
    }).join(", ");
  }

  function header() {
    var tr = el("tr");
    function th(label, key, title) {
      var cell = el("th", { "data-key": String(key), "class": key === "entry" ? "entry" : "num", title: title || label }, label);
      if (sortKey === key) cell.setAttribute("aria-sort", sortDir > 0 ? "ascending" : "descending");
      cell.addEventListener("click", function () {
        sortDir = sortKey === key ? -sortDir : (key === "entry" ? 1 : -1); sortKey = key; header(); apply();
      });
      tr.appendChild(cell);
    }
    th("Entry", "entry");
    if (!pairwise) th("Spread", "spread", "highest overall of the row minus the lowest");
    columns.forEach(function (name, k) { th(name, k, name); });
    $("matrix-head").replaceChildren(tr);
  }

  function render() {
    var pages = Math.max(1, Math.ceil(shown.length / PAGE));
    page = Math.min(page, pages - 1);
    var fragment = document.createDocumentFragment();
    shown.slice(page * PAGE, (page + 1) * PAGE).forEach(function (e) {
      var tr = el("tr");
      tr.appendChild(el("th", { "class": "entry", scope: "row" }, e.key));
      if (!pairwise) tr.appendChild(el("td", { "class": "num spread" }, two(e.spread)));
      columns.forEach(function (name, k) {
        var r = e.cells[k];
        var td = el("td", { "class": "num cell " + shade(r) }, cellText(r));
        if (r) { td.setAttribute("data-index", r.i); td.setAttribute("tabindex", "0"); td.setAttribute("title", r.id); }
        else td.setAttribute("title", e.key + "/" + name + ": no capture");
        tr.appendChild(td);
      });
      fragment.appendChild(tr);
    });
    $("matrix-rows").replaceChildren(fragment);
    $("m-count").textContent = shown.length + " of " + entries.length + " entries · " + columns.length +
      (pairwise ? " compared pair" : " configuration") + (columns.length === 1 ? "" : "s");
    $("m-page").textContent = "page " + (page + 1) + " of " + pages;
    $("m-prev").disabled = page === 0;
    $("m-next").disabled = page >= pages - 1;
  }

  // The capture view's texts: parsed from their own element the first time a capture is opened.
  var texts = null;
  function textsOf(id) {
    if (texts === null) {
      texts = {};
      var node = $("ora-texts"), parsed = node ? JSON.parse(node.textContent) : null;
      if (parsed) parsed.rows.forEach(function (row) { texts[row[0]] = row; });
      texts.strings = parsed ? parsed.strings : null;
      texts.turns = parsed && parsed.transcripts ? parsed.transcripts : {};
    }
    if (!texts.strings) return null;
    var row = texts[id];
    if (!row) return undefined;
    var S = texts.strings, get = function (k) { return k < 0 ? null : S[k]; };
    var turns = Object.prototype.hasOwnProperty.call(texts.turns, id) ? texts.turns[id] : null;
    return { prompt: get(row[1]), context: get(row[2]), answer: get(row[3]), second: get(row[4]),
             turns: turns ? turns.map(function (t) { return { role: t[0], content: get(t[1]) }; }) : null };
  }
  // A transcript answer as a conversation: one block per turn, its role as a label; every text inserted as text.
  function conversation(box, turns) {
    box.appendChild(el("h4", {}, "Answer (a transcript of " + turns.length + " turn" + (turns.length === 1 ? "" : "s") + ")"));
    var list = el("ol", { "class": "transcript" });
    turns.forEach(function (turn, k) {
      var item = el("li", { "class": "turn turn-" + (/^[a-z]+$/.test(turn.role) ? turn.role : "other") });
      item.appendChild(el("span", { "class": "turn-role" }, "turn " + (k + 1) + ": " + turn.role));
      item.appendChild(el("pre", { "class": "text text-turn" }, turn.content));
      list.appendChild(item);
    });
    box.appendChild(list);
  }
  function block(box, title, text, name) {
    box.appendChild(el("h4", {}, title));
    if (text === null || text === undefined) { box.appendChild(el("p", { "class": "note" }, "none")); return; }
    if (text === "") { box.appendChild(el("p", { "class": "note" }, "(empty)")); return; }
    var pre = el("pre", { "class": "text text-" + name }, text);
    box.appendChild(pre);
    if (text.length > LONG || text.split("\n").length > 24) {
      pre.classList.add("collapsed");
      var more = el("button", { "class": "more", type: "button" }, "show all (" + text.length + " characters)");
      more.addEventListener("click", function () {
        var collapsed = pre.classList.toggle("collapsed");
        more.textContent = collapsed ? "show all (" + text.length + " characters)" : "show less";
      });
      box.appendChild(more);
    }
  }
  ORA.captureBody = function (box, r) {
    var x = extras[r.i] || {};
    if (x.grades) {
      var table = el("table", { "class": "scores grades" }), head = el("tr");
      head.appendChild(el("th", {}, "axis")); head.appendChild(el("th", {}, "grade"));
      table.appendChild(head);
      x.grades.forEach(function (g) {
        var tr = el("tr"); tr.appendChild(el("td", {}, g[0]));
        tr.appendChild(el("td", { "class": "grade grade-" + g[1].split(" ")[0].replace("/", "") }, g[1])); table.appendChild(tr);
      });
      box.appendChild(table);
    }
    if (x.compare) {
      var c = x.compare;
      box.appendChild(el("p", { "class": "winner" }, c.first + " against " + c.second + ": " +
        winnerText(c) + " (" + verdicts(c) + ")"));
    }
    var t = textsOf(r.id);
    if (t === null) { box.appendChild(el("p", { "class": "note" }, "This report holds no prompts or answers (the run wrote no texts.json).")); return; }
    if (t === undefined) { box.appendChild(el("p", { "class": "note" }, "No prompt or answer is kept for this capture.")); return; }
    block(box, "Prompt", t.prompt, "prompt");
    if (t.context !== null) block(box, "Context", t.context, "context");
    if (x.compare) {
      block(box, "Answer of " + x.compare.first, t.answer, "answer");
      block(box, "Answer of " + x.compare.second, t.second, "answer");
    } else if (t.turns) {
      conversation(box, t.turns);
    } else {
      block(box, "Answer", t.answer, "answer");
    }
    box.appendChild(el("h4", {}, "Judges"));
  };

  var rowsBody = $("matrix-rows");
  rowsBody.addEventListener("click", function (event) {
    var td = event.target.closest("td[data-index]"); if (td) ORA.open(Number(td.getAttribute("data-index")));
  });
  rowsBody.addEventListener("keydown", function (event) {
    var td = event.target.closest("td[data-index]");
    if (td && event.key === "Enter") ORA.open(Number(td.getAttribute("data-index")));
  });
  document.addEventListener("click", function (event) {
    var link = event.target.closest("a.open-capture");
    if (!link) return;
    event.preventDefault();
    var index = byId[link.getAttribute("data-capture")];
    if (index !== undefined) ORA.open(index);
  });
  $("m-family").addEventListener("change", apply);
  $("m-text").addEventListener("input", apply);
  $("m-prev").addEventListener("click", function () { page -= 1; render(); });
  $("m-next").addEventListener("click", function () { page += 1; render(); });
  header();
  apply();
  // For benchmarks/report_page.py: when the matrix's first page was in the DOM.
  if (window.performance && performance.mark) performance.mark("ora-matrix-shown");
})();
