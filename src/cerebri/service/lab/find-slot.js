// cerebri Lab, find a slot: calendars stay in this tab and go out only with a question to
// this app (POST /v1/find-slot, /v1/find-slot/event). Plain JavaScript, no network beyond it.
"use strict";

(function () {
  const API = new URL("../v1/", document.baseURI);
  const T = window.CerebriTimeline;
  const $ = (id) => document.getElementById(id);
  const calendars = []; // [{id, ics, name, optional}] in the order added
  let lastBody = null;
  let lastAnswer = null;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }
  function setStatus(text, kind) {
    $("status").textContent = text;
    $("status").className = kind || "";
  }
  function showError(text) {
    $("error").textContent = text || "";
    $("error").hidden = !text;
  }

  // ---------- calendars ----------
  function idFor(name) {
    const base = (name.replace(/\.ics$/i, "").replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "") || "calendar").slice(0, 100);
    let id = base;
    for (let n = 2; calendars.some((c) => c.id === id); n++) id = base + "-" + n;
    return id;
  }
  function addCalendar(name, ics) {
    if (!/BEGIN:VCALENDAR/i.test(ics)) {
      showError(name + " is not an iCalendar file (no BEGIN:VCALENDAR).");
      return;
    }
    calendars.push({ id: idFor(name), ics, name, optional: false });
    renderCalendars();
  }
  async function addFiles(files) {
    showError("");
    for (const file of files) addCalendar(file.name, await file.text());
    setStatus(calendars.length + " calendar" + (calendars.length === 1 ? "" : "s") + " loaded.");
  }
  function renderCalendars() {
    const list = $("calendar-list");
    list.replaceChildren();
    if (!calendars.length) list.append(el("li", { class: "muted", text: "No calendar yet." }));
    calendars.forEach((c, i) => {
      const events = (c.ics.match(/BEGIN:VEVENT/gi) || []).length;
      list.append(el("li", { "data-testid": "calendar-item", "data-id": c.id },
        el("strong", { text: c.id }), " ",
        el("span", { class: "muted small", text: "(" + c.name + ", " + events + " event" + (events === 1 ? "" : "s") + ", " + Math.ceil(c.ics.length / 1024) + " KB)" }), " ",
        el("label", { class: "optional", title: "An optional attendee never blocks a slot" },
          el("input", { type: "checkbox", "data-testid": "calendar-optional", checked: c.optional ? "" : null, "aria-label": c.id + " is optional", onchange: (ev) => { c.optional = ev.target.checked; } }),
          " optional"), " ",
        el("button", { type: "button", class: "link", "aria-label": "remove " + c.id, onclick: () => { calendars.splice(i, 1); renderCalendars(); } }, "remove"),
      ));
    });
  }

  // ---------- the question ----------
  function body() {
    if (!calendars.length) throw new Error("Add at least one calendar (.ics) first.");
    const start = $("window-start").value;
    const end = $("window-end").value;
    if (!start || !end) throw new Error("Choose when the meeting may happen (From and Until).");
    const out = {
      calendars: calendars.map((c) => (c.optional ? { id: c.id, ics: c.ics, optional: true } : { id: c.id, ics: c.ics })),
      duration: $("duration").value.trim(),
      between: start + "/" + end,
      tz: $("tz").value.trim() || "UTC",
      granularity: $("granularity").value.trim() || "15m",
      top: Number($("top").value) || 10,
    };
    if (calendars.every((c) => c.optional)) throw new Error("Make at least one calendar required (untick optional).");
    const fields = { working_hours: "working-hours", working_days: "working-days", min_attendance: "min-attendance" };
    const kind = $("prefer-kind").value;
    if (kind === "at") fields.prefer = "prefer";
    if (kind === "between") fields.prefer_between = "prefer-between";
    if (kind === "earliest") out.prefer_earliest = true;
    if (kind === "latest") out.prefer_latest = true;
    const hours = $("hours").value.split(";").map((h) => h.trim()).filter(Boolean);
    if (hours.length) out.hours = hours;
    for (const [key, id] of Object.entries(fields)) {
      const value = $(id).value.trim();
      if (value) out[key] = value;
    }
    return out;
  }
  function showPreference() {
    const kind = $("prefer-kind").value;
    $("prefer").hidden = kind !== "at";
    $("prefer-between").hidden = kind !== "between";
  }
  async function post(path, payload) {
    const init = { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(payload) };
    const token = sessionStorage.getItem("cerebri.token");
    if (token) init.headers.Authorization = "Bearer " + token;
    const response = await fetch(new URL(path, API), init);
    if (!response.ok) {
      const text = await response.text();
      let message = text;
      try {
        const problem = JSON.parse(text);
        message = problem.detail + " (" + problem.code + (problem.path ? ", at " + problem.path : "") + ")";
      } catch (_) { /* not a problem document */ }
      throw new Error("HTTP " + response.status + ": " + message);
    }
    return response;
  }
  async function find() {
    showError("");
    $("find-button").disabled = true;
    try {
      const payload = body();
      setStatus("Looking for slots…");
      const answer = await (await post("find-slot", payload)).json();
      lastBody = payload;
      lastAnswer = answer;
      if (!zoneOptions().includes(answer.tz)) addZoneOption(answer.tz);
      $("display-tz").value = answer.tz;
      render();
      const n = answer.slots.length;
      setStatus("Found " + answer.feasible + " free slot" + (answer.feasible === 1 ? "" : "s") + (n < answer.feasible ? ", showing " + n : "") + ".", n ? "ok" : "");
    } catch (err) {
      showError(err.message);
      setStatus("Failed.", "bad");
    } finally {
      $("find-button").disabled = false;
      document.body.dataset.answered = String(Date.now());
    }
  }
  async function download(slot) {
    showError("");
    try {
      const title = $("event-title").value.trim() || "Meeting";
      const response = await post("find-slot/event", { ...lastBody, pick: slot.rank, title });
      const blob = new Blob([await response.arrayBuffer()], { type: "text/calendar" });
      const link = el("a", { href: URL.createObjectURL(blob), download: "slot-" + slot.rank + ".ics" });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
      setStatus("Downloaded slot #" + slot.rank + ".", "ok");
    } catch (err) {
      showError(err.message);
    }
  }

  // ---------- rendering ----------
  function render() {
    if (!lastAnswer) return;
    const zone = $("display-tz").value || lastAnswer.tz;
    renderTimeline(lastAnswer, zone);
    renderSlots(lastAnswer, zone);
    document.dispatchEvent(new CustomEvent("cerebri:rendered"));
  }
  function renderTimeline(answer, zone) {
    const box = $("timeline");
    box.replaceChildren();
    const t0 = Date.parse(answer.window.start);
    const t1 = Date.parse(answer.window.end);
    const span = Math.max(t1 - t0, 1);
    const pos = (iso) => Math.min(Math.max(((Date.parse(iso) - t0) / span) * 100, 0), 100);
    const place = (s, e) => "left:" + pos(s) + "%;width:" + Math.max(pos(e) - pos(s), 0.2) + "%";
    const row = (label, testid, extra) => {
      const track = el("div", { class: "tl-track", "data-testid": testid });
      box.append(el("div", { class: "tl-row " + (extra || "") }, el("div", { class: "tl-label", title: label, text: label }), track));
      return track;
    };
    const days = row(T.zoneLabel(zone), "timeline-days", "tl-axis tl-days");
    const hours = row("", "timeline-axis", "tl-axis");
    T.drawAxis(days, hours, t0, t1, zone);
    const when = (s, e) => T.format(Date.parse(s), zone, true) + " – " + T.format(Date.parse(e), zone, true) + " " + T.zoneLabel(zone);
    const optional = new Set(answer.optional_calendars || []);
    for (const id of answer.calendars) {
      const isOptional = optional.has(id);
      const track = row(isOptional ? id + " (optional)" : id, isOptional ? "timeline-optional" : "timeline-calendar", isOptional ? "optional" : "");
      for (const b of answer.busy.filter((x) => x.calendar === id)) {
        const label = b.summary || "busy";
        const who = isOptional ? " (" + id + ", optional)" : "";
        track.append(el("div", { class: "bar busy" + (isOptional ? " optional" : ""), style: place(b.start, b.end), title: label + who + ": " + when(b.start, b.end), "data-label": label, "data-testid": isOptional ? "optional-busy-bar" : "busy-bar", "data-calendar": id, "data-start": b.start, "data-end": b.end }));
      }
    }
    const slots = row("Ranked slots", "timeline-slots");
    for (const s of answer.slots) {
      const label = "#" + s.rank + " " + T.format(Date.parse(s.start), zone, false);
      slots.append(el("div", { class: "bar " + (s.rank === 1 ? "chosen" : "slot"), style: place(s.start, s.end), title: "#" + s.rank + ": " + when(s.start, s.end), "data-label": label, "data-testid": "slot-bar" }));
    }
    T.fitLabels(box);
  }
  // Each attendee's local start when the answer knows their zones (hours, decision 0053).
  function localTimes(slot) {
    const per = slot.local_times;
    if (!per || !Object.keys(per).length) return null;
    return el("div", { class: "muted small", "data-testid": "slot-local-times" },
      Object.entries(per).map(([who, t]) => who + " " + T.format(Date.parse(t.start), t.zone, false)).join(" · "));
  }
  function renderSlots(answer, zone) {
    const tbody = $("slots").querySelector("tbody");
    tbody.replaceChildren();
    const words = { ProvenOptimal: "every start on the grid was checked; the first slot is the best", Complete: "every start on the grid was checked", BestFound: "the search stopped early or a calendar was incomplete; no optimality claim" };
    $("verdict").textContent = answer.outcome + " · " + answer.assessment + ": " + (words[answer.assessment] || "") + ". Times in " + T.zoneLabel(zone) + ".";
    if (!answer.slots.length) {
      const why = answer.below_min_attendance_total ? "No slot has enough attendees free: lower the min attendance, widen the window or shorten the meeting." : "No free slot: widen the window, shorten the meeting or relax working hours.";
      tbody.append(el("tr", {}, el("td", { colspan: "6", class: "muted", text: why })));
    }
    const names = (list, kind, suffix) => list.map((id) => el("span", { class: "who " + kind, "data-who": id, text: id + suffix }));
    const joined = (spans) => spans.flatMap((span, i) => (i ? [", ", span] : [span]));
    for (const s of answer.slots) {
      const free = names(s.free.required, "required", "").concat(names(s.free.optional_free, "optional", " (optional)"));
      const missing = names(s.free.optional_busy, "busy", " (busy)").concat(names(s.free.optional_unknown, "unknown", " (unknown)"));
      const distance = s.preference_distance_seconds;
      const title = distance === null || distance === undefined ? null : "daily preference distance: " + Math.round(distance / 60) + " min";
      tbody.append(el("tr", { class: s.rank === 1 ? "chosen" : "", "data-testid": "slot-row", "data-start": s.start, "data-optional-free": s.free.optional_free.join(" "), title },
        el("td", { class: "num", text: String(s.rank) }),
        el("td", { class: "when", "data-testid": "slot-start" }, T.format(Date.parse(s.start), zone, true), localTimes(s)),
        el("td", { class: "when", "data-testid": "slot-end", text: T.format(Date.parse(s.end), zone, true) }),
        el("td", { "data-testid": "slot-free" }, joined(free)),
        el("td", { "data-testid": "slot-not-free" }, missing.length ? joined(missing) : el("span", { class: "muted", text: "–" })),
        el("td", {}, el("button", { type: "button", "data-testid": "slot-download", onclick: () => download(s) }, "download .ics")),
      ));
    }
    const below = answer.below_min_attendance_total || 0;
    $("below").hidden = !below;
    $("below").textContent = below ? below + " free slot" + (below === 1 ? " was" : "s were") + " left out: fewer attendees than the min attendance are free then" + (answer.below_min_attendance.length ? " (first: " + T.format(Date.parse(answer.below_min_attendance[0].start), zone, true) + ")." : ".") : "";
    const list = $("warnings");
    list.replaceChildren(...answer.warnings.map((w) => el("li", { "data-testid": "warning", text: w.code + (w.source ? " (" + w.source + (w.line ? ":" + w.line : "") + ")" : "") + ": " + w.message })));
  }

  // ---------- zones and defaults ----------
  function zoneOptions() {
    return [...$("display-tz").options].map((o) => o.value);
  }
  function addZoneOption(zone) {
    $("display-tz").append(el("option", { value: zone, text: T.zoneLabel(zone) }));
  }
  function setUp() {
    const here = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
    const names = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
    $("zone-names").replaceChildren(...names.map((n) => el("option", { value: n })));
    for (const zone of [...new Set(["UTC", here, "Europe/London", "Europe/Berlin", "America/New_York", "America/Los_Angeles", "Asia/Tokyo", "Australia/Sydney"])]) addZoneOption(zone);
    $("tz").value = here;
    $("display-tz").value = here;
    const pad = (n) => String(n).padStart(2, "0");
    const local = (d) => d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + "T" + pad(d.getHours()) + ":" + pad(d.getMinutes());
    const today = new Date();
    today.setHours(0, 0, 0, 0);
    const start = new Date(today.getTime() + T.DAY);
    start.setHours(8);
    const end = new Date(start.getTime() + 4 * T.DAY);
    end.setHours(18);
    $("window-start").value = local(start);
    $("window-end").value = local(end);
  }

  const zone = $("drop-zone");
  zone.addEventListener("dragover", (ev) => { ev.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (ev) => {
    ev.preventDefault();
    zone.classList.remove("over");
    addFiles([...(ev.dataTransfer && ev.dataTransfer.files) || []]);
  });
  $("ics-files").addEventListener("change", (ev) => addFiles([...ev.target.files]).finally(() => { ev.target.value = ""; }));
  $("paste-add").addEventListener("click", () => {
    const text = $("paste-ics").value;
    if (!text.trim()) return showError("Paste an iCalendar text first.");
    showError("");
    addCalendar($("paste-name").value.trim() || "pasted", text);
    $("paste-ics").value = "";
  });
  $("find-button").addEventListener("click", find);
  $("prefer-kind").addEventListener("change", showPreference);
  $("display-tz").addEventListener("change", render);
  window.addEventListener("resize", () => T.fitLabels($("timeline")));
  setUp();
  // What the event-change panel (change.js) reads: the last question, answer and zone shown.
  window.cerebriFindSlot = { body: () => lastBody, answer: () => lastAnswer, zone: () => $("display-tz").value || (lastAnswer && lastAnswer.tz) || "UTC" };
  document.body.dataset.ready = "true";
})();
