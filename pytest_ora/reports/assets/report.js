"use strict";
// The capture table: rows live in the embedded JSON and are rendered a page at a time, so the page
// stays quick at tens of thousands of captures. No network, no library.
(function () {
  var data = JSON.parse(document.getElementById("ora-data").textContent);
  var cap = data.captures, S = cap.strings, criteria = data.rubric.criteria, extras = data.extras || {};
  // A compare run's items have a winner where other runs have an overall, and no criteria scores.
  var pairwise = data.rubric.kind === "compare";
  var PAGE = 50;
  var rows = cap.rows.map(function (r, i) {
    return { i: i, id: S[r[0]], family: S[r[1]], configuration: S[r[2]], status: S[r[3]],
             reason: r[4] < 0 ? "" : S[r[4]], overall: r[5], failure: r[6], means: r[7], judges: r[8],
             flags: r[9].map(function (k) { return S[k]; }), winner: winnerOf(i) };
  });
  function winnerOf(i) {
    var x = extras[i];
    if (!pairwise || !x || !x.compare) return null;
    return x.compare.winner === x.compare.first || x.compare.winner === x.compare.second ? x.compare.winner : "tie";
  }
  var shown = rows, page = 0, sortKey = null, sortDir = 1;
  var $ = function (id) { return document.getElementById(id); };
  var body = $("capture-rows"), count = $("count");

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    for (var key in attrs) { if (attrs.hasOwnProperty(key)) node.setAttribute(key, attrs[key]); }
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function fmt(value) { return value === null || value === undefined ? "" : (Math.round(value * 100) / 100).toString(); }

  function apply() {
    var family = $("f-family").value, configuration = $("f-configuration").value, status = $("f-status").value;
    var text = $("f-text").value.trim().toLowerCase();
    shown = rows.filter(function (r) {
      if (family && r.family !== family) return false;
      if (configuration && r.configuration !== configuration) return false;
      if (status === "failure") { if (r.failure !== 1) return false; } else if (status && r.status !== status) return false;
      if (text && r.id.toLowerCase().indexOf(text) < 0 && r.reason.toLowerCase().indexOf(text) < 0) return false;
      return true;
    });
    if (sortKey) {
      shown = shown.slice().sort(function (a, b) {
        var x = a[sortKey], y = b[sortKey];
        if (x === y) return a.i - b.i;
        if (x === null || x === undefined) return 1;
        if (y === null || y === undefined) return -1;
        return (x < y ? -1 : 1) * sortDir;
      });
    }
    page = 0;
    render();
  }

  function render() {
    var pages = Math.max(1, Math.ceil(shown.length / PAGE));
    page = Math.min(page, pages - 1);
    var fragment = document.createDocumentFragment();
    shown.slice(page * PAGE, (page + 1) * PAGE).forEach(function (r) {
      var tr = el("tr", { "data-index": r.i, tabindex: "0" });
      tr.appendChild(el("td", {}, r.id));
      tr.appendChild(el("td", {}, r.family));
      tr.appendChild(el("td", {}, r.configuration));
      var td = el("td"); td.appendChild(el("span", { "class": "status status-" + r.status }, r.status)); tr.appendChild(td);
      if (pairwise) tr.appendChild(el("td", {}, r.winner));
      else tr.appendChild(el("td", { "class": "num" + (r.failure === 1 ? " low" : "") }, fmt(r.overall)));
      tr.appendChild(el("td", {}, r.reason));
      fragment.appendChild(tr);
    });
    body.replaceChildren(fragment);
    count.textContent = shown.length + " of " + rows.length + " captures";
    $("page").textContent = "page " + (page + 1) + " of " + pages;
    $("prev").disabled = page === 0;
    $("next").disabled = page >= pages - 1;
  }

  function open(index) {
    var r = rows[index], box = $("detail");
    box.replaceChildren();
    var close = el("button", { "class": "close", type: "button" }, "close");
    close.addEventListener("click", function () { box.hidden = true; });
    box.appendChild(close);
    box.appendChild(el("h3", {}, r.id));
    box.appendChild(el("p", {}, r.family + " · " + r.configuration + " · " + r.status +
      (r.overall !== null ? " · overall " + fmt(r.overall) + (r.failure === 1 ? " (a failure)" : "") : "") +
      (r.flags.length ? " · " + r.flags.join(", ") : "")));
    if (r.reason) box.appendChild(el("p", { "class": "note" }, r.reason));
    // What the capture asked and answered: matrix.js adds it, from the page's texts.
    if (window.ORA && window.ORA.captureBody) window.ORA.captureBody(box, r);
    if (r.judges.length && !pairwise) {
      var table = el("table", { "class": "scores" }), head = el("tr");
      head.appendChild(el("th", {}, "criterion"));
      r.judges.forEach(function (j) { head.appendChild(el("th", { "class": "num" }, S[j[0]])); });
      if (r.means) head.appendChild(el("th", { "class": "num" }, "mean"));
      table.appendChild(head);
      criteria.forEach(function (name, k) {
        var tr = el("tr"); tr.appendChild(el("td", {}, name));
        r.judges.forEach(function (j) { tr.appendChild(el("td", { "class": "num" }, fmt(j[2][k]))); });
        if (r.means) tr.appendChild(el("td", { "class": "num" }, fmt(r.means[k])));
        table.appendChild(tr);
      });
      box.appendChild(table);
    }
    r.judges.forEach(function (j) {
      box.appendChild(el("h4", {}, S[j[0]] + ": " + S[j[1]] + (pairwise ? "" : " · own overall " + fmt(j[6])) +
        (j[5] > 1 ? " (" + j[5] + " asks)" : "")));
      box.appendChild(el("div", { "class": "impression" }, j[4] < 0 ? "" : S[j[4]]));
      if (pairwise) return;
      var list = el("dl");
      criteria.forEach(function (name, k) {
        list.appendChild(el("dt", {}, name + " " + fmt(j[2][k])));
        list.appendChild(el("dd", {}, j[3][k] < 0 ? "" : S[j[3][k]]));
      });
      box.appendChild(list);
    });
    box.hidden = false;
    close.focus();
  }

  ["f-family", "f-configuration", "f-status"].forEach(function (id) { $(id).addEventListener("change", apply); });
  $("f-text").addEventListener("input", apply);
  $("prev").addEventListener("click", function () { page -= 1; render(); });
  $("next").addEventListener("click", function () { page += 1; render(); });
  body.addEventListener("click", function (event) {
    var tr = event.target.closest("tr"); if (tr) open(Number(tr.getAttribute("data-index")));
  });
  body.addEventListener("keydown", function (event) {
    var tr = event.target.closest("tr"); if (tr && event.key === "Enter") open(Number(tr.getAttribute("data-index")));
  });
  document.addEventListener("keydown", function (event) { if (event.key === "Escape") $("detail").hidden = true; });
  var keys = ["id", "family", "configuration", "status", null, pairwise ? "winner" : "overall"];
  document.querySelectorAll("th[data-sort]").forEach(function (th) {
    th.addEventListener("click", function () {
      var key = keys[Number(th.getAttribute("data-sort"))];
      sortDir = sortKey === key ? -sortDir : 1; sortKey = key; apply();
    });
  });
  apply();
  window.ORA = { data: data, rows: rows, open: open, el: el, fmt: fmt };
})();
