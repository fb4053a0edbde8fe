// cerebri Lab, change an event (find-slot.html, panel 5): pick a busy bar, find it a new
// time, cancel it or edit it, and propose the change. The calendars go out only with a
// question to this app (POST /v1/find-slot/events, /v1/events/reschedule|cancel|update); a
// proposal is made unsigned by the app (POST /v1/proposals/prepare), signed here with the
// proposer's key (WebCrypto, memory only) and submitted (POST /v1/plans). Every text shown
// is set as text, never as markup.
"use strict";

(function () {
  const F = window.cerebriFindSlot;
  const S = window.cerebriStore;
  const T = window.CerebriTimeline;
  const { el } = S;
  const $ = (id) => document.getElementById(id);
  let events = []; // [{calendar, uid, recurrence_id, start, end, summary}]
  let eventsFor = null; // the find-slot body they were read for
  let picked = null;
  let lastDoc = null; // the change document of the last question

  function showError(text) {
    $("change-error").textContent = text || "";
    $("change-error").hidden = !text;
  }
  function setStatus(text, kind) {
    $("change-status").textContent = text;
    $("change-status").className = kind || "";
  }
  const zone = () => F.zone();
  const when = (s, e, z) => T.format(Date.parse(s), z, true) + " – " + T.format(Date.parse(e), z, false) + " " + T.zoneLabel(z);
  const same = (a, b) => Date.parse(a) === Date.parse(b);

  // ---------- picking an event on the timeline ----------
  async function loadEvents() {
    const body = F.body();
    if (!body) return;
    try {
      if (eventsFor !== body) {
        events = (await S.api("POST", "find-slot/events", body)).events;
        eventsFor = body;
      }
    } catch (err) {
      showError("Cannot list the events: " + err.message);
      return;
    }
    markBars();
  }
  function eventOf(bar) {
    const calendar = bar.getAttribute("data-calendar");
    const start = bar.getAttribute("data-start");
    const end = bar.getAttribute("data-end");
    return events.find((e) => e.calendar === calendar && same(e.start, start) && same(e.end, end)) || null;
  }
  function markBars() {
    for (const bar of document.querySelectorAll("#timeline .bar.busy")) {
      const ev = eventOf(bar);
      if (!ev) continue;
      bar.classList.add("pickable");
      bar.setAttribute("role", "button");
      bar.setAttribute("tabindex", "0");
      bar.setAttribute("data-uid", ev.uid);
      bar.classList.toggle("picked", !!picked && picked.uid === ev.uid && picked.start === ev.start && picked.calendar === ev.calendar);
      bar.onclick = () => pick(ev);
      bar.onkeydown = (key) => {
        if (key.key === "Enter" || key.key === " ") {
          key.preventDefault();
          pick(ev);
        }
      };
    }
  }
  function pick(ev) {
    picked = ev;
    lastDoc = null;
    showError("");
    setStatus("");
    const series = ev.recurrence_id ? " · one instance of a series (tick “the whole series” to change every one)" : "";
    $("picked").className = "";
    $("picked").replaceChildren(
      el("strong", { "data-testid": "picked-title", text: ev.summary || "(no title)" }), " ",
      el("span", { text: "in " + ev.calendar + ", " + when(ev.start, ev.end, zone()) }),
      el("span", { class: "muted small", text: " · UID " + ev.uid + series }),
    );
    for (const id of ["change-find", "change-cancel", "change-edit"]) $(id).disabled = false;
    $("change-before").replaceChildren();
    candidatesBody().replaceChildren(el("tr", {}, el("td", { colspan: "6", class: "muted", text: "No change asked yet." })));
    markBars();
  }

  // ---------- asking for a change ----------
  // The body of POST /v1/events/<kind> (decision 0058): the page's calendars and window, the
  // event picked, and only the members that operation takes.
  const TAKES = {
    reschedule: ["between", "granularity", "working_hours", "working_days", "buffer"],
    cancel: ["between"],
    update: ["between"],
  };
  function changeBody(kind) {
    const base = F.body();
    const out = { uid: picked.uid, calendars: base.calendars, calendar: picked.calendar, tz: base.tz };
    for (const key of TAKES[kind]) if (base[key] !== undefined) out[key] = base[key];
    if (picked.recurrence_id && !$("whole-series").checked) out.instance = picked.recurrence_id;
    else if (picked.recurrence_id) out.series = true;
    if (kind === "update") {
      const title = $("edit-title").value.trim();
      const duration = $("edit-duration").value.trim();
      if (!title && !duration) throw new Error("Give a new title or a new duration to edit the event.");
      if (title) out.title = title;
      if (duration) out.duration = duration;
    }
    return out;
  }
  async function ask(kind) {
    showError("");
    if (!picked) return;
    const buttons = ["change-find", "change-cancel", "change-edit"].map($);
    buttons.forEach((b) => (b.disabled = true));
    try {
      const body = changeBody(kind);
      setStatus(kind === "reschedule" ? "Looking for a new time…" : "Checking the change…");
      lastDoc = await S.api("POST", "events/" + kind, body);
      lastDoc.kind = kind;
      renderChange(lastDoc);
      const n = (lastDoc.candidates || []).length;
      setStatus(kind === "reschedule" ? (n ? n + " new time" + (n === 1 ? "" : "s") + " found." : "No new time found.") : "Ready to propose: " + (lastDoc.outcome || ""), n || kind === "cancel" ? "ok" : "");
    } catch (err) {
      showError(err.message);
      setStatus("Failed.", "bad");
    } finally {
      buttons.forEach((b) => (b.disabled = false));
      document.body.dataset.changed = String(Date.now());
    }
  }

  // ---------- the answer ----------
  const candidatesBody = () => $("change-candidates").querySelector("tbody");
  function rangeOf(candidate) {
    const placement = candidate.proposed && candidate.proposed.placements && candidate.proposed.placements[0];
    return placement && placement.range ? placement.range : { start: candidate.start, end: null };
  }
  function minutes(seconds) {
    const m = Math.round(Math.abs(seconds) / 60);
    if (m < 60) return m + " min";
    const h = Math.floor(m / 60);
    return h + " h" + (m % 60 ? " " + (m % 60) + " min" : "");
  }
  function reason(candidate, before) {
    for (const part of candidate.explanation || []) {
      const r = part.reason;
      if (r && typeof r === "object" && r.Disruption) {
        const d = r.Disruption;
        const shift = d.shift_seconds || 0;
        const dir = shift === 0 ? "" : Date.parse(rangeOf(candidate).start) < Date.parse(before.start) ? " earlier" : " later";
        const words = ["same day", "another day, same time of day", "another day and time"][d.class] || "class " + d.class;
        return words + (shift ? ", " + minutes(shift) + dir : "");
      }
    }
    return "–";
  }
  // Each attendee's zone: the answer's local_times (decision 0053) when it has them, else the
  // zones declared in the page's "Attendees' hours" (id=...@Zone), else the page's zone.
  function declaredZones() {
    const zones = [];
    for (const entry of $("hours").value.split(";")) {
      const m = /^\s*([^=\s]+)\s*=.*@\s*([A-Za-z_+\-/0-9]+)\s*$/.exec(entry);
      if (m && T.isValidZone(m[2])) zones.push([m[1], m[2]]);
    }
    return zones;
  }
  function localTimes(doc, index, range) {
    const per = doc.local_times && doc.local_times[index];
    const listed = per && Object.keys(per).length
      ? Object.entries(per).map(([who, t]) => [who, t.start, t.end, t.zone])
      : range.end ? declaredZones().map(([who, z]) => [who, range.start, range.end, z]) : [];
    if (listed.length) {
      return el("ul", { class: "plain", "data-testid": "candidate-local-times" },
        listed.map(([who, s, e, z]) => el("li", { "data-who": who, text: who + ": " + when(s, e, z) })));
    }
    return el("span", { "data-testid": "candidate-local-times", text: range.end ? when(range.start, range.end, zone()) : "–" });
  }
  function renderChange(doc) {
    const before = doc.event || {};
    $("change-before").replaceChildren(
      el("p", { "data-testid": "change-event-before" },
        el("strong", { text: "Now: " }),
        el("span", { text: (before.title || "(no title)") + ", " + (before.start ? when(before.start, before.end, zone()) : "–") }),
        el("span", { class: "muted small", text: " · " + (before.scope || "") + " · SEQUENCE " + (before.sequence ?? "–") })),
    );
    const tbody = candidatesBody();
    tbody.replaceChildren();
    const candidates = doc.candidates || [];
    if (!candidates.length) {
      const row = el("tr", {}, el("td", { colspan: "5", class: "muted", text: "Outcome " + (doc.outcome || "–") + (doc.kind === "cancel" ? ": the event is removed." : ": no candidate.") }));
      if (doc.kind === "cancel" && doc.outcome === "Solution") row.append(el("td", {}, proposeButton(1)));
      tbody.append(row);
      return;
    }
    const top = Number((F.body() || {}).top) || 10; // the page's "Show at most"
    candidates.slice(0, top).forEach((c, i) => {
      const range = rangeOf(c);
      tbody.append(el("tr", { "data-testid": "change-candidate", "data-start": range.start, class: i === 0 ? "chosen" : "" },
        el("td", { class: "num", text: String(i + 1) }),
        el("td", { class: "when", "data-testid": "candidate-start", text: T.format(Date.parse(range.start), zone(), true) }),
        el("td", { class: "when", text: range.end ? T.format(Date.parse(range.end), zone(), true) : "–" }),
        el("td", { "data-testid": "candidate-reason", text: doc.kind === "reschedule" ? reason(c, before) : doc.kind === "update" ? "the new length fits" : "removed from the calendars" }),
        el("td", {}, localTimes(doc, i, range)),
        el("td", {}, proposeButton(i + 1)),
      ));
    });
  }

  // ---------- proposing ----------
  function proposeButton(rank) {
    return el("button", { type: "button", "data-testid": "change-propose", onclick: (ev) => propose(rank, ev.target) }, "Propose");
  }
  async function propose(rank, button) {
    showError("");
    button.disabled = true;
    try {
      if (!lastDoc || !lastDoc.request) throw new Error("This answer carries no request to propose.");
      if (!S.token()) throw new Error("Set your token (Who proposes) first.");
      if (!S.keyid()) throw new Error("Load your signing key (Who proposes) first.");
      setStatus("Signing the proposal…");
      const ask = { request: lastDoc.request, candidate: rank };
      if (lastDoc.event && lastDoc.event.title) ask.title = lastDoc.event.title;
      const prepared = await S.api("POST", "proposals/prepare", ask);
      const entry = await S.signPayload(prepared.signing.payload_type, prepared.signing.payload);
      const envelope = { ...prepared.envelope, signature: { signatures: [entry] } };
      const submitted = await S.api("POST", "plans", { envelope, artifact: prepared.artifact });
      $("change-status").replaceChildren(
        el("span", { "data-testid": "proposed-plan", "data-plan-id": submitted.plan_id, text: "Proposed: plan " + submitted.plan_id + (submitted.replayed ? " (proposed before)" : "") + " waits for approval. " }),
        el("a", { href: "plan.html?id=" + encodeURIComponent(submitted.plan_id), text: "See the plan" }),
      );
      $("change-status").className = "ok";
    } catch (err) {
      showError(err.message);
      setStatus("Not proposed.", "bad");
    } finally {
      button.disabled = false;
      document.body.dataset.proposed = String(Date.now());
    }
  }
  async function loadKey() {
    const state = $("key-state");
    try {
      const id = await S.loadKey($("keyid-input").value.trim(), $("key-input").value);
      $("key-input").value = "";
      state.textContent = "Key " + id + " loaded (in memory only).";
      state.className = "ok-text";
    } catch (err) {
      state.textContent = err.message;
      state.className = "bad-text";
    }
  }

  document.addEventListener("cerebri:rendered", loadEvents);
  $("change-find").addEventListener("click", () => ask("reschedule"));
  $("change-cancel").addEventListener("click", () => ask("cancel"));
  $("change-edit").addEventListener("click", () => ask("update"));
  $("key-load").addEventListener("click", loadKey);
  S.wireToken(() => {});
})();
