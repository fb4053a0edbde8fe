// cerebri Lab: plain JavaScript, no framework, no build step, no network beyond this app.
"use strict";

(function () {
  const API = new URL("../v1/", document.baseURI);
  const $ = (id) => document.getElementById(id);

  const ASSESSMENT_WORDS = {
    ProvenOptimal:
      "ProvenOptimal: every position of the declared grid was evaluated, so the first candidate is the best " +
      "start over the whole grid under the ordering key.",
    Complete:
      "Complete: every grid position was evaluated and every one was rejected, so no start on this grid " +
      "satisfies the hard constraints.",
    BestFound:
      "BestFound: the search stopped early (budget or limits) or could not run; the candidates shown are the " +
      "best seen so far and no optimality claim is made.",
  };
  const OUTCOME_WORDS = {
    Solution: "at least one feasible start was found",
    NoSolution: "no feasible start exists",
    NeedsRelaxation: "no feasible start; some constraint must be relaxed",
    InsufficientInformation: "the request lacks information needed to plan",
  };
  const VIOLATION_WORDS = {
    Overlap: "overlaps",
    OutsideBounds: "lies outside the allowed bounds",
    WrongDuration: "has the wrong duration",
    DependencyMissing: "depends on a missing object",
    DependencyOrder: "breaks the dependency order",
    InsufficientBuffer: "leaves too little buffer",
    TimezoneMismatch: "has a timezone mismatch",
    Locked: "touches a locked object",
    UnsupportedRecurrence: "involves an unsupported recurrence",
  };

  let lastRequest = null;

  // ---------- small helpers ----------
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k === "style") node.setAttribute("style", v);
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }
  const ms = (iso) => Date.parse(iso);
  const T = window.CerebriTimeline;
  // Times show in the zone chosen above the timeline (UTC until another is chosen).
  const displayZone = () => ($("display-tz") && $("display-tz").value) || "UTC";
  function fmtTime(iso, withDate) {
    if (!iso) return "–";
    const t = Date.parse(iso);
    if (Number.isNaN(t)) return String(iso);
    const zone = displayZone();
    return withDate ? T.format(t, zone, true) + " " + T.zoneLabel(zone) : T.format(t, zone, false);
  }
  function fmtDuration(seconds) {
    if (seconds === null || seconds === undefined) return "–";
    if (seconds % 3600 === 0) return seconds / 3600 + " h";
    if (seconds % 60 === 0) return seconds / 60 + " min";
    return seconds + " s";
  }
  const compact = (v) => (typeof v === "string" ? v : JSON.stringify(v));

  // Externally tagged values: a bare string, or a one-key object {Name: payload}.
  function describeTagged(value) {
    if (value === null || value === undefined) return "–";
    if (typeof value === "string") return value;
    if (typeof value !== "object" || Array.isArray(value)) return compact(value);
    const keys = Object.keys(value);
    if (keys.length !== 1) return compact(value);
    const name = keys[0];
    const payload = value[name];
    if (name === "HardConstraint" && payload && typeof payload === "object") return describeViolation(payload);
    if (payload === null || payload === undefined) return name;
    if (typeof payload !== "object") return name + ": " + payload;
    if (Array.isArray(payload)) return name + ": " + payload.map(compact).join(", ");
    const parts = Object.entries(payload).map(([k, v]) => k + "=" + compact(v));
    return name + ": " + parts.join(", ");
  }
  function describeViolation(v) {
    const c = v.constraint || {};
    const kind = typeof c === "object" && c.kind ? c.kind : compact(c);
    const ev = v.evidence || {};
    const verb = VIOLATION_WORDS[v.reason] || v.reason;
    let text = "Hard constraint " + kind + " failed: " + (v.object_id || "object") + " " + verb + " (" + v.reason + ")";
    const blockers = [];
    if (ev.blocking_objects && ev.blocking_objects.length) blockers.push(ev.blocking_objects.join(", "));
    if (ev.blocking_occurrences && ev.blocking_occurrences.length) {
      blockers.push("occurrence " + ev.blocking_occurrences.map(shortId).join(", "));
    }
    if (blockers.length) text += " with " + blockers.join("; ");
    const rest = Object.entries(c).filter(([k]) => k !== "kind");
    if (rest.length) text += " [" + rest.map(([k, val]) => k + "=" + compact(val)).join(", ") + "]";
    if (ev.facts && ev.facts.length) text += ". Facts: " + ev.facts.join("; ");
    return text;
  }
  const shortId = (id) => (typeof id === "string" && id.length > 20 ? id.slice(0, 16) + "…" : id);

  function setStatus(text, kind) {
    const s = $("status");
    s.textContent = text;
    s.className = kind || "";
  }
  function showError(text) {
    const e = $("error");
    e.textContent = text || "";
    e.hidden = !text;
  }

  async function call(method, path, body) {
    const init = { method, headers: { Accept: "application/json" } };
    // The token the approvals page keeps for this tab, when the service requires one.
    const token = sessionStorage.getItem("cerebri.token");
    if (token) init.headers.Authorization = "Bearer " + token;
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = body;
    }
    const response = await fetch(new URL(path, API), init);
    const text = await response.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch (_) {
      data = null;
    }
    if (!response.ok) {
      let detail = text;
      if (data && typeof data === "object") detail = JSON.stringify(data, null, 2);
      throw new Error("HTTP " + response.status + " from " + path + ":\n" + detail);
    }
    return data;
  }

  function readRequest() {
    const text = $("request-input").value.trim();
    if (!text) throw new Error("The request is empty: load an example, upload a file or paste JSON.");
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new Error("The request is not valid JSON: " + err.message);
    }
    lastRequest = parsed;
    return text;
  }

  // ---------- examples and input ----------
  async function loadExampleList() {
    const select = $("example-select");
    try {
      const names = await call("GET", "examples");
      select.replaceChildren();
      for (const item of names || []) {
        const name = typeof item === "string" ? item : item.name || item.id || compact(item);
        select.append(el("option", { value: name, text: name }));
      }
      if (!select.options.length) select.append(el("option", { value: "", text: "(no examples)" }));
      if (!$("request-input").value.trim() && select.value) await loadExample();
    } catch (err) {
      select.replaceChildren(el("option", { value: "", text: "(examples unavailable)" }));
      showError(err.message);
    }
  }
  async function loadExample() {
    const name = $("example-select").value;
    if (!name) return;
    showError("");
    try {
      const request = await call("GET", "examples/" + encodeURIComponent(name));
      $("request-input").value = JSON.stringify(request, null, 2);
      setStatus("Loaded example " + name + ".");
    } catch (err) {
      showError(err.message);
      setStatus("Could not load the example.", "bad");
    }
  }
  async function loadFile(event) {
    const file = event.target.files && event.target.files[0];
    if (!file) return;
    $("request-input").value = await file.text();
    setStatus("Loaded file " + file.name + ".");
  }

  // ---------- actions ----------
  async function runValidate() {
    await guarded(async () => {
      const body = readRequest();
      setStatus("Validating…");
      const report = await call("POST", "validate", body);
      renderValidation(report);
      window.CerebriBatch.render($("batch"), null, {});
      $("raw-json").textContent = JSON.stringify(report, null, 2);
      setStatus("Validated: " + report.state + ".", report.state === "Valid" ? "ok" : "");
    });
  }
  async function runPlan() {
    await guarded(async () => {
      const body = readRequest();
      setStatus("Validating…");
      const report = await call("POST", "validate", body);
      renderValidation(report);
      setStatus("Planning…");
      const result = await call("POST", "plan", body);
      renderResult(result);
      const n = (result.candidates || []).length;
      setStatus("Planned: " + result.outcome + ", " + n + " candidate" + (n === 1 ? "" : "s") + ".", n ? "ok" : "");
    });
  }
  async function guarded(action) {
    showError("");
    const buttons = [$("validate-button"), $("plan-button")];
    buttons.forEach((b) => (b.disabled = true));
    try {
      await action();
    } catch (err) {
      showError(err.message);
      setStatus("Failed.", "bad");
    } finally {
      buttons.forEach((b) => (b.disabled = false));
    }
  }

  // ---------- rendering ----------
  function renderValidation(report) {
    const state = (report && report.state) || "–";
    const cls = state === "Valid" ? "good" : state === "ValidWithUncertainty" ? "warn" : "bad";
    $("validation-state").replaceChildren(el("span", { class: "badge " + cls, text: state }));
    const list = $("validation-issues");
    list.replaceChildren();
    const issues = (report && report.issues) || [];
    if (!issues.length) list.append(el("li", { class: "muted", text: "No issues." }));
    for (const issue of issues) list.append(el("li", { "data-testid": "validation-issue", text: describeTagged(issue) }));
  }

  function renderResult(result) {
    lastResult = result;
    renderValidation(result.validation);
    const outcome = result.outcome || "–";
    $("outcome").replaceChildren(
      el("span", { class: "badge " + (outcome === "Solution" ? "good" : "bad"), text: outcome }),
      " ",
      el("span", { class: "muted", text: OUTCOME_WORDS[outcome] || "" }),
    );
    const assessment = result.assessment || "–";
    $("assessment").replaceChildren(
      el("span", { class: "badge " + (assessment === "BestFound" ? "warn" : "good"), text: assessment }),
    );
    $("assessment-text").textContent = ASSESSMENT_WORDS[assessment] || "";
    const space = result.search_space || {};
    $("search-space").textContent = space.horizon
      ? fmtTime(space.horizon.start, true) + " → " + fmtTime(space.horizon.end, true) +
        ", every " + fmtDuration(space.granularity) + "; " + space.evaluated + " start(s) evaluated" +
        (space.exhausted ? ", grid exhausted" : ", grid NOT exhausted")
      : "–";
    window.CerebriBatch.render($("batch"), lastRequest, result);
    renderTimeline(result);
    renderCandidates(result);
    renderRejections(result);
    $("raw-json").textContent = JSON.stringify(result, null, 2);
  }
  let lastResult = null;

  function busyIntervals(request) {
    const out = [];
    const objects = (request && request.context && request.context.objects) || [];
    for (const obj of objects) {
      const kind = obj.kind && (obj.kind.kind || obj.kind);
      if (kind !== "EVENT" && kind !== "TASK") continue;
      const knowledge = obj.time && obj.time.value && obj.time.value.knowledge;
      if (!knowledge || knowledge.state !== "KNOWN" || !knowledge.data) continue;
      const { start, end } = knowledge.data;
      if (start && end) out.push({ id: obj.id, kind, start, end });
    }
    return out;
  }

  function renderTimeline(result) {
    const box = $("timeline");
    box.replaceChildren();
    const space = result.search_space || {};
    const scope = lastRequest && lastRequest.scope && lastRequest.scope.time_range;
    const horizon = space.horizon || scope;
    if (!horizon) {
      box.append(el("p", { class: "muted", text: "No search window in this result." }));
      return;
    }
    const t0 = ms(horizon.start);
    const t1 = ms(horizon.end);
    const span = Math.max(t1 - t0, 1);
    const multiDay = t1 - t0 > 24 * 3600 * 1000;
    const pos = (iso) => Math.min(Math.max(((ms(iso) - t0) / span) * 100, 0), 100);
    const place = (startIso, endIso) => {
      const left = pos(startIso);
      const right = pos(endIso);
      return "left:" + left + "%;width:" + Math.max(right - left, 0.15) + "%";
    };
    const row = (label, testid, extraClass) => {
      const track = el("div", { class: "tl-track", "data-testid": testid });
      box.append(el("div", { class: "tl-row " + (extraClass || "") }, el("div", { class: "tl-label", text: label }), track));
      return track;
    };

    // Axis: local dates on a multi-day window, then hours, in the chosen zone.
    const zone = displayZone();
    const days = row(T.zoneLabel(zone), "timeline-days", "tl-axis tl-days");
    T.drawAxis(days, row(multiDay ? "date/time" : "time", "timeline-axis", "tl-axis"), t0, t1, zone);

    // Busy intervals from the request context.
    const busy = row("Busy", "timeline-busy");
    for (const b of busyIntervals(lastRequest)) {
      if (ms(b.end) <= t0 || ms(b.start) >= t1) continue;
      const tip = b.id + " (" + b.kind + "): " + fmtTime(b.start, true) + " – " + fmtTime(b.end, true);
      busy.append(el("div", { class: "bar busy", style: place(b.start, b.end), title: tip, "data-testid": "busy-interval", "data-label": b.id }));
    }

    // Series occurrences from the compilation.
    const occurrences = (result.compilation && result.compilation.occurrences) || [];
    if (occurrences.length) {
      const occ = row("Series occurrences", "timeline-occurrences");
      for (const o of occurrences) {
        const range = o.occurrence && (o.occurrence.range || o.occurrence.visible_range);
        if (!range) continue;
        const tip = "series " + o.series_id + ": " + fmtTime(range.start, true) + " – " + fmtTime(range.end, true) + " (" + o.id + ")";
        occ.append(el("div", { class: "bar occurrence", style: place(range.start, range.end), title: tip, "data-testid": "occurrence", "data-label": o.series_id }));
      }
    }

    // Every evaluated start: candidates (feasible) and rejections.
    const byStart = new Map();
    const entry = (start) => {
      if (!byStart.has(start)) byStart.set(start, { start, candidates: [], reasons: [] });
      return byStart.get(start);
    };
    const candidates = result.candidates || [];
    candidates.forEach((c, i) => entry(c.start).candidates.push({ rank: i + 1, c }));
    for (const r of (result.conflicts && result.conflicts.rejections) || []) entry(r.start).reasons.push(...(r.reasons || []));
    const granularity = (space.granularity || 60) * 1000;
    const starts = row("Evaluated starts", "timeline-starts");
    const chosenStart = candidates.length ? candidates[0].start : null;
    for (const e of [...byStart.values()].sort((a, b) => ms(a.start) - ms(b.start))) {
      const feasible = e.candidates.length > 0;
      const endIso = new Date(ms(e.start) + granularity).toISOString();
      const classes = ["marker", feasible ? "feasible" : "rejected"];
      if (e.start === chosenStart) classes.push("chosen");
      const marker = el("div", {
        class: classes.join(" "),
        style: place(e.start, endIso).replace(/width:([0-9.]+)%/, (_, w) => "width:calc(" + w + "% - 2px)"),
        title: startSummary(e),
        tabindex: "0",
        role: "button",
        "data-testid": feasible ? "start-feasible" : "start-rejected",
        "data-start": e.start,
      });
      const pick = () => selectStart(e, marker);
      marker.addEventListener("click", pick);
      marker.addEventListener("keydown", (ev) => {
        if (ev.key === "Enter" || ev.key === " ") pick();
      });
      starts.append(marker);
    }

    // The chosen candidate's placements.
    const chosenRow = row("Chosen candidate", "timeline-chosen");
    if (candidates.length) {
      const best = candidates[0];
      for (const p of (best.proposed && best.proposed.placements) || []) {
        const tip = "#1 " + p.object_id + ": " + fmtTime(p.range.start, true) + " – " + fmtTime(p.range.end, true);
        chosenRow.append(el("div", { class: "bar chosen", style: place(p.range.start, p.range.end), title: tip, "data-testid": "chosen-candidate", "data-label": p.object_id + " " + fmtTime(p.range.start) }));
      }
    } else {
      chosenRow.append(el("span", { class: "muted", style: "padding-left:6px;line-height:30px", text: "no candidate" }));
    }
    T.fitLabels(box);
    $("start-details").className = "details muted";
    $("start-details").textContent = "No start selected.";
  }

  function startSummary(e) {
    const head = fmtTime(e.start, true);
    if (e.candidates.length) {
      return head + " — feasible: " + e.candidates.map(({ rank, c }) => "#" + rank + " " + c.object_id + ", cost " + c.cost).join("; ");
    }
    return head + " — rejected: " + e.reasons.map(describeTagged).join("; ");
  }

  function selectStart(e, marker) {
    document.querySelectorAll(".marker.selected").forEach((m) => m.classList.remove("selected"));
    marker.classList.add("selected");
    const box = $("start-details");
    box.className = "details";
    const title = el("strong", { text: fmtTime(e.start, true) + (e.candidates.length ? " — feasible" : " — rejected") });
    const list = el("ul");
    if (e.candidates.length) {
      for (const { rank, c } of e.candidates) {
        list.append(el("li", { "data-testid": "start-candidate" }, "Rank #" + rank + " (" + c.object_id + ", cost " + c.cost + " s): " + (c.explanation || []).map(explain).join("; ")));
      }
    } else {
      for (const r of e.reasons) list.append(el("li", { class: "reason-rejected", "data-testid": "rejection-reason", text: describeTagged(r) }));
    }
    box.replaceChildren(title, list);
  }

  const explain = (part) => describeTagged(part.reason) + (part.cost ? " (+" + part.cost + " s)" : "");

  function renderCandidates(result) {
    const body = $("candidates").querySelector("tbody");
    body.replaceChildren();
    const candidates = result.candidates || [];
    if (!candidates.length) {
      body.append(el("tr", {}, el("td", { colspan: "8", class: "muted", text: "No feasible candidate." })));
      return;
    }
    const multiDay = new Set(candidates.map((c) => String(c.start).slice(0, 10))).size > 1;
    candidates.forEach((c, i) => {
      const placements = el("ul", {}, ((c.proposed && c.proposed.placements) || []).map((p) =>
        el("li", { text: p.object_id + ": " + fmtTime(p.range.start, multiDay) + "–" + fmtTime(p.range.end, multiDay) })));
      const key = el("div", { class: "key" }, Object.entries(c.ordering_key || {}).map(([k, v]) => el("div", { text: k + " = " + compact(v) })));
      const explanation = el("ul", {}, (c.explanation || []).map((p) => el("li", { text: explain(p) })));
      const tr = el("tr", { class: "candidate" + (i === 0 ? " chosen" : ""), "data-testid": "candidate-row", "data-start": c.start, title: "Show this start on the timeline" },
        el("td", { class: "num", text: String(i + 1) + (i === 0 ? " ★" : "") }),
        el("td", { class: "when", "data-testid": "candidate-start", text: fmtTime(c.start, true) }),
        el("td", {}, placements),
        el("td", { class: "num", text: String(c.cost) }),
        el("td", { class: "num", text: String(c.mutation_count) }),
        el("td", { class: "num", text: String(c.shifted_seconds) }),
        el("td", {}, key),
        el("td", { "data-testid": "candidate-explanation" }, explanation),
      );
      tr.addEventListener("click", () => {
        const marker = document.querySelector('.marker[data-start="' + c.start + '"]');
        if (marker) {
          marker.click();
          marker.scrollIntoView({ block: "nearest", behavior: "smooth" });
        }
      });
      body.append(tr);
    });
  }

  function renderRejections(result) {
    const body = $("rejections").querySelector("tbody");
    body.replaceChildren();
    const rejections = (result.conflicts && result.conflicts.rejections) || [];
    $("rejection-count").textContent = "(" + rejections.length + ")";
    if (!rejections.length) {
      body.append(el("tr", {}, el("td", { colspan: "2", class: "muted", text: "No start was rejected." })));
      return;
    }
    for (const r of rejections) {
      body.append(el("tr", { "data-testid": "rejection-row", "data-start": r.start },
        el("td", { class: "when", text: fmtTime(r.start, true) }),
        el("td", {}, el("ul", {}, (r.reasons || []).map((x) => el("li", { class: "reason-rejected", text: describeTagged(x) })))),
      ));
    }
  }

  // ---------- wiring ----------
  $("load-example").addEventListener("click", loadExample);
  $("request-file").addEventListener("change", loadFile);
  $("validate-button").addEventListener("click", runValidate);
  $("plan-button").addEventListener("click", runPlan);
  for (const zone of ["UTC", Intl.DateTimeFormat().resolvedOptions().timeZone, "Europe/London", "Europe/Berlin", "America/New_York", "Asia/Tokyo"]) {
    if (zone && ![...$("display-tz").options].some((o) => o.value === zone)) $("display-tz").append(el("option", { value: zone, text: T.zoneLabel(zone) }));
  }
  $("display-tz").addEventListener("change", () => {
    if (lastResult) renderResult(lastResult);
  });
  window.addEventListener("resize", () => T.fitLabels($("timeline")));
  loadExampleList().finally(() => {
    document.body.dataset.ready = "true";
  });
})();
