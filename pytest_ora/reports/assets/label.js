// pytest-ora labelling page. Everything from the bundle is data: it is written with textContent and
// attributes only, never parsed as HTML, and the page's Content-Security-Policy runs this script alone.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("label-data").textContent);
  var rubric = data.rubric;
  var criteria = rubric.criteria;
  var scale = rubric.scale;
  var captures = data.captures;
  var state = load();
  var criterion = 0;

  function load() {
    var empty = { rater: "", current: 0, labels: {} };
    try {
      var raw = window.localStorage.getItem(data.storage_key);
      var parsed = raw ? JSON.parse(raw) : null;
      if (parsed && typeof parsed === "object" && parsed.labels && typeof parsed.labels === "object") {
        return { rater: String(parsed.rater || ""), current: Math.min(Number(parsed.current) || 0, captures.length - 1), labels: parsed.labels };
      }
    } catch (error) { /* storage unavailable or corrupt: start afresh */ }
    return empty;
  }

  function save() {
    try { window.localStorage.setItem(data.storage_key, JSON.stringify(state)); } catch (error) { /* private mode: progress not kept */ }
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function labelOf(id) {
    if (!state.labels[id]) { state.labels[id] = { scores: {}, notes: "" }; }
    return state.labels[id];
  }

  function complete(id) {
    var label = state.labels[id];
    return !!label && criteria.every(function (c) { return typeof label.scores[c.name] === "number"; });
  }

  function started(id) {
    var label = state.labels[id];
    return !!label && (Object.keys(label.scores).length > 0 || !!label.notes);
  }

  function onScale(value) {
    if (typeof value !== "number" || !isFinite(value) || value < scale.min || value > scale.max) { return false; }
    if (!scale.step_declared) { return true; }
    var steps = (value - scale.min) / scale.step;
    return Math.abs(steps - Math.round(steps)) < 1e-9;
  }

  function progress() {
    var done = captures.filter(function (c) { return complete(c.id); }).length;
    document.getElementById("progress").textContent = done + " of " + captures.length + " labelled";
    document.getElementById("prev").disabled = state.current === 0;
    document.getElementById("next").disabled = state.current === captures.length - 1;
  }

  function renderList() {
    var list = document.getElementById("list");
    list.textContent = "";
    captures.forEach(function (capture, index) {
      var button = el("button", { type: "button", "data-index": String(index) }, "Capture " + capture.number);
      if (index === state.current) { button.className = "current"; button.setAttribute("aria-current", "true"); }
      if (complete(capture.id)) { button.classList.add("done"); } else if (started(capture.id)) { button.classList.add("partial"); }
      button.addEventListener("click", function () { go(index); });
      list.appendChild(button);
    });
  }

  function section(parent, title, text, cls) {
    if (text === null || text === undefined || text === "") { return; }
    parent.appendChild(el("h3", {}, title));
    parent.appendChild(el("pre", { "class": "text " + (cls || "") }, text));
  }

  function renderCapture() {
    var capture = captures[state.current];
    var article = document.getElementById("capture");
    article.textContent = "";
    article.appendChild(el("h2", {}, "Capture " + capture.number + " of " + captures.length + ": " + capture.entry_key));
    if (!data.blind && capture.configuration) {
      article.appendChild(el("p", { "class": "note" }, "Configuration: " + capture.configuration));
    }
    if (capture.target) { article.appendChild(el("p", { "class": "facts" }, "Target: " + capture.target)); }
    section(article, "Prompt", capture.prompt);
    section(article, "Context", capture.context);
    section(article, "Answer", capture.answer === "" ? "(empty answer)" : capture.answer, "answer");
    if (capture.artifact) {
      article.appendChild(el("h3", {}, "Artifact (" + capture.artifact.kind + ", " + capture.artifact.path + ")"));
      if (capture.artifact.image) {
        article.appendChild(el("img", { "class": "artifact", src: capture.artifact.image, alt: "visual artifact " + capture.artifact.path }));
      } else if (capture.artifact.text !== null && capture.artifact.text !== undefined) {
        article.appendChild(el("pre", { "class": "text" }, capture.artifact.text));
      } else {
        article.appendChild(el("p", { "class": "note" }, "The artifact is an image too large to show here: open it from the bundle."));
      }
    }
    if (capture.specification) {
      var details = el("details", {});
      details.appendChild(el("summary", {}, "Technique specification (" + capture.specification_source + ")"));
      details.appendChild(el("pre", { "class": "text" }, capture.specification));
      article.appendChild(details);
    }
    if (!data.blind && capture.judges && capture.judges.length) {
      var judges = el("details", { "class": "judges" });
      judges.appendChild(el("summary", {}, "Judges' scores (not blind)"));
      capture.judges.forEach(function (judge) {
        var parts = criteria.map(function (c) { return c.name + " " + judge.scores[c.name]; });
        judges.appendChild(el("p", {}, "Judge " + judge.label + ": " + parts.join(", ") + "; overall " + judge.overall));
      });
      article.appendChild(judges);
    }
  }

  function setScore(name, value) {
    var label = labelOf(captures[state.current].id);
    if (value === null) { delete label.scores[name]; } else { label.scores[name] = value; }
    save();
    progress();
    renderList();
  }

  function renderScoring() {
    var capture = captures[state.current];
    var label = labelOf(capture.id);
    var aside = document.getElementById("scoring");
    aside.textContent = "";
    aside.appendChild(el("h2", {}, "Your scores"));
    var range = "Scale " + scale.min + " to " + scale.max + (scale.step_declared ? " in steps of " + scale.step : (scale.values.length ? ", in whole points here" : ""));
    aside.appendChild(el("p", { "class": "scale" }, range));
    if (rubric.anchors.length) {
      var general = el("dl", { "class": "anchors" });
      rubric.anchors.forEach(function (anchor) { general.appendChild(el("dt", {}, anchor[0])); general.appendChild(el("dd", {}, anchor[1])); });
      aside.appendChild(general);
    }
    criteria.forEach(function (c, index) {
      var box = el("fieldset", { "data-criterion": c.name });
      if (index === criterion) { box.className = "current"; }
      box.appendChild(el("legend", {}, (index + 1) + ". " + c.title));
      box.appendChild(el("p", { "class": "question" }, c.question));
      var choices = el("div", { "class": "choices", role: "radiogroup", "aria-label": c.title });
      if (scale.values.length) {
        scale.values.forEach(function (value) {
          var wrap = el("label", {});
          var input = el("input", { type: "radio", name: "score-" + c.name, value: String(value), "aria-label": c.title + " " + value });
          if (label.scores[c.name] === value) { input.checked = true; }
          input.addEventListener("change", function () { criterion = index; setScore(c.name, value); markCurrent(); });
          input.addEventListener("focus", function () { criterion = index; markCurrent(); });
          wrap.appendChild(input);
          wrap.appendChild(el("span", {}, String(value)));
          choices.appendChild(wrap);
        });
      } else {
        var number = el("input", { type: "number", "class": "number", min: String(scale.min), max: String(scale.max), step: scale.step_declared ? String(scale.step) : "any", "aria-label": c.title });
        if (typeof label.scores[c.name] === "number") { number.value = String(label.scores[c.name]); }
        number.addEventListener("input", function () {
          var value = number.value === "" ? null : Number(number.value);
          number.setCustomValidity(value === null || onScale(value) ? "" : "off the scale");
          if (value === null || onScale(value)) { setScore(c.name, value); }
        });
        choices.appendChild(number);
      }
      box.appendChild(choices);
      if (c.anchors.length) {
        var anchors = el("dl", { "class": "anchors" });
        c.anchors.forEach(function (anchor) { anchors.appendChild(el("dt", {}, anchor[0])); anchors.appendChild(el("dd", {}, anchor[1])); });
        box.appendChild(anchors);
      }
      aside.appendChild(box);
    });
    var notes = el("textarea", { id: "notes", "aria-label": "Notes", placeholder: "Notes (optional): why these scores" });
    notes.value = label.notes || "";
    notes.addEventListener("input", function () { labelOf(capture.id).notes = notes.value; save(); renderList(); });
    aside.appendChild(el("label", { "for": "notes" }, "Notes"));
    aside.appendChild(notes);
    var next = el("button", { type: "button", id: "save-next" }, state.current < captures.length - 1 ? "Next capture \u2192" : "Last capture");
    next.addEventListener("click", function () { go(state.current + 1); });
    aside.appendChild(next);
  }

  function markCurrent() {
    document.querySelectorAll("#scoring fieldset").forEach(function (box, index) { box.classList.toggle("current", index === criterion); });
  }

  function go(index) {
    if (index < 0 || index >= captures.length) { return; }
    state.current = index;
    criterion = 0;
    save();
    render();
    window.scrollTo(0, 0);
  }

  function render() {
    renderList();
    renderCapture();
    renderScoring();
    progress();
  }

  function download() {
    var note = document.getElementById("download-note");
    var rater = document.getElementById("rater").value.trim();
    if (!rater) {
      note.textContent = "Enter your name as rater first.";
      document.getElementById("rater").focus();
      return;
    }
    var lines = [];
    var partial = 0;
    captures.forEach(function (capture) {
      if (complete(capture.id)) {
        var label = state.labels[capture.id];
        var scores = {};
        criteria.forEach(function (c) { scores[c.name] = label.scores[c.name]; });
        lines.push(JSON.stringify({ capture_id: capture.id, rater: rater, scores: scores, notes: label.notes || "" }));
      } else if (started(capture.id)) {
        partial += 1;
      }
    });
    if (!lines.length) { note.textContent = "No capture is fully scored yet: nothing to download."; return; }
    var blob = new Blob([lines.join("\n") + "\n"], { type: "application/x-ndjson" });
    var link = el("a", { href: URL.createObjectURL(blob), download: "labels.jsonl" });
    document.body.appendChild(link);
    link.click();
    link.remove();
    note.textContent = lines.length + " captures in labels.jsonl" + (partial ? "; " + partial + " partly scored left out" : "") + ".";
  }

  function typing(target) {
    var tag = target && target.tagName;
    return tag === "TEXTAREA" || (tag === "INPUT" && target.type !== "radio");
  }

  function key(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) { return; }
    var name = criteria[criterion].name;
    var current = labelOf(captures[state.current].id).scores[name];
    if (event.key === "n") { go(state.current + 1); } else if (event.key === "p") { go(state.current - 1); } else if (event.key === "j" || event.key === "k") {
      criterion = Math.max(0, Math.min(criteria.length - 1, criterion + (event.key === "j" ? 1 : -1)));
      markCurrent();
      var box = document.querySelectorAll("#scoring fieldset")[criterion];
      if (box) { box.scrollIntoView({ block: "nearest" }); }
    } else if (event.key === "d") { download(); } else if (/^[0-9]$/.test(event.key) && scale.values.indexOf(Number(event.key)) >= 0) {
      choose(Number(event.key));
    } else if ((event.key === "+" || event.key === "-") && scale.values.length) {
      var at = scale.values.indexOf(current);
      var next = at < 0 ? (event.key === "+" ? 0 : scale.values.length - 1) : Math.max(0, Math.min(scale.values.length - 1, at + (event.key === "+" ? 1 : -1)));
      choose(scale.values[next], true);
    } else { return; }
    event.preventDefault();
  }

  function choose(value, stay) {
    setScore(criteria[criterion].name, value);
    if (!stay && criterion < criteria.length - 1) { criterion += 1; }
    renderScoring();
  }

  var raterInput = document.getElementById("rater");
  raterInput.value = state.rater;
  raterInput.addEventListener("input", function () { state.rater = raterInput.value; save(); });
  document.getElementById("prev").addEventListener("click", function () { go(state.current - 1); });
  document.getElementById("next").addEventListener("click", function () { go(state.current + 1); });
  document.getElementById("download").addEventListener("click", download);
  document.addEventListener("keydown", key);
  render();
}());
