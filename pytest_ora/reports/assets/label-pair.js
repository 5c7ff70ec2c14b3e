"use strict";
(function () {
  var data = JSON.parse(document.getElementById("label-data").textContent);
  var pairs = data.pairs;
  var state = load();
  var current = 0;

  function load() {
    try {
      var saved = JSON.parse(localStorage.getItem(data.storage_key) || "{}");
      return { rater: saved.rater || "", choices: saved.choices || {}, notes: saved.notes || {} };
    } catch (e) {
      return { rater: "", choices: {}, notes: {} };
    }
  }
  function save() {
    try { localStorage.setItem(data.storage_key, JSON.stringify(state)); } catch (e) { /* private mode: kept in memory */ }
  }
  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function done() { return pairs.filter(function (p) { return state.choices[p.id]; }).length; }
  function progress() {
    document.getElementById("progress").textContent = done() + " of " + pairs.length + " labelled";
  }
  function list() {
    var nav = document.getElementById("list");
    nav.textContent = "";
    pairs.forEach(function (p, i) {
      var b = el("button", { type: "button" }, "Pair " + p.number);
      if (i === current) b.className = "current";
      if (state.choices[p.id]) b.className += " done";
      b.addEventListener("click", function () { show(i); });
      nav.appendChild(b);
    });
  }
  function show(i) {
    current = Math.max(0, Math.min(pairs.length - 1, i));
    var p = pairs[current];
    var article = document.getElementById("pair");
    article.textContent = "";
    article.appendChild(el("h2", {}, "Pair " + p.number + " of " + pairs.length));
    article.appendChild(el("h3", {}, "Prompt"));
    article.appendChild(el("pre", { "class": "text" }, p.prompt));
    var side = el("div", { "class": "side" });
    p.answers.forEach(function (answer, k) {
      var column = el("section", { "data-answer": String(k + 1) });
      column.appendChild(el("h3", {}, "Answer " + (k + 1)));
      column.appendChild(el("pre", { "class": "text answer" }, answer));
      side.appendChild(column);
    });
    article.appendChild(side);
    var verdict = el("div", { "class": "verdict", role: "group", "aria-label": "Which answer is better?" });
    [["1", "Answer 1 is better"], ["tie", "Tie"], ["2", "Answer 2 is better"]].forEach(function (choice) {
      var b = el("button", { type: "button", "data-choice": choice[0] }, choice[1]);
      if (state.choices[p.id] === choice[0]) b.className = "chosen";
      b.addEventListener("click", function () { choose(choice[0], false); });
      verdict.appendChild(b);
    });
    article.appendChild(verdict);
    var notes = el("textarea", { id: "notes", placeholder: "notes (optional)", maxlength: "4000" });
    notes.value = state.notes[p.id] || "";
    notes.addEventListener("input", function () { state.notes[p.id] = notes.value; save(); });
    article.appendChild(notes);
    list();
    progress();
  }
  function choose(choice, advance) {
    state.choices[pairs[current].id] = choice;
    save();
    if (advance && current < pairs.length - 1) show(current + 1); else show(current);
  }
  function winner(p) {
    var choice = state.choices[p.id];
    if (choice === "tie") return "tie";
    var firstShownFirst = p.shown === "first-second";
    return (choice === "1") === firstShownFirst ? "first" : "second";
  }
  function download() {
    var note = document.getElementById("download-note");
    var rater = state.rater.trim();
    if (!rater) { note.textContent = "Type your name (Rater) first: every label names its rater."; return; }
    var lines = pairs.filter(function (p) { return state.choices[p.id]; }).map(function (p) {
      var line = { capture_id: p.id, rater: rater, winner: winner(p), shown: p.shown };
      if (state.notes[p.id]) line.notes = state.notes[p.id];
      return JSON.stringify(line) + "\n";
    });
    if (!lines.length) { note.textContent = "No pair labelled yet."; return; }
    var link = el("a", { href: URL.createObjectURL(new Blob(lines, { type: "application/jsonl" })), download: "labels.jsonl" });
    document.body.appendChild(link);
    link.click();
    link.remove();
    note.textContent = lines.length + " labels downloaded.";
  }
  var rater = document.getElementById("rater");
  rater.value = state.rater;
  rater.addEventListener("input", function () { state.rater = rater.value; save(); });
  document.getElementById("prev").addEventListener("click", function () { show(current - 1); });
  document.getElementById("next").addEventListener("click", function () { show(current + 1); });
  document.getElementById("download").addEventListener("click", download);
  document.addEventListener("keydown", function (event) {
    var tag = (event.target && event.target.tagName) || "";
    if (tag === "INPUT" || tag === "TEXTAREA" || event.ctrlKey || event.metaKey || event.altKey) return;
    var keys = { "1": "1", "2": "2", "t": "tie" };
    if (keys[event.key]) { choose(keys[event.key], true); event.preventDefault(); }
    else if (event.key === "n") show(current + 1);
    else if (event.key === "p") show(current - 1);
    else if (event.key === "d") download();
  });
  show(0);
}());
