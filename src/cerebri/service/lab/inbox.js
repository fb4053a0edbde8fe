// cerebri Lab: the approvals inbox (open approvals, approve or reject with a signed
// decision) and the list of plans. Plain JavaScript, no network beyond this app.
"use strict";

(function () {
  const S = window.cerebriStore;
  const { el } = S;
  const $ = (id) => document.getElementById(id);
  const DAY = 24 * 3600 * 1000;

  function showError(text) {
    $("inbox-error").textContent = text || "";
    $("inbox-error").hidden = !text;
  }

  function until(iso) {
    const left = Date.parse(iso) - Date.now();
    if (Number.isNaN(left)) return "";
    if (left <= 0) return "(past)";
    const minutes = Math.round(left / 60000);
    return minutes < 120 ? "(in " + minutes + " min)" : "(in " + Math.round(minutes / 60) + " h)";
  }

  // The slot on a small timeline of its UTC day(s), with 6-hour ticks.
  function slotTimeline(start, end) {
    const s = Date.parse(start);
    const e = Date.parse(end);
    if (Number.isNaN(s) || Number.isNaN(e) || e <= s) return el("span", { class: "muted", text: "no slot" });
    const t0 = Math.floor(s / DAY) * DAY;
    const t1 = Math.max(t0 + DAY, Math.ceil(e / DAY) * DAY);
    const pct = (t) => ((t - t0) / (t1 - t0)) * 100;
    const track = el("div", { class: "mini-track", "data-testid": "approval-timeline" });
    for (let t = t0; t <= t1; t += 6 * 3600 * 1000) {
      const label = new Date(t).toISOString().slice(11, 16);
      track.append(el("span", { class: "mini-tick", style: "left:" + pct(t) + "%", text: pct(t) < 97 ? label : "" }));
    }
    track.append(
      el("div", {
        class: "mini-slot",
        style: "left:" + pct(s) + "%;width:" + Math.max(pct(e) - pct(s), 0.6) + "%",
        title: S.fmtInstant(start) + " – " + S.fmtInstant(end),
      }),
    );
    return track;
  }

  // What a change of an existing event does (proposed.change, decision 0056): its kind,
  // before and after (times, title, place), the attendees and who gets a message.
  function moment(m) {
    if (!m) return "–";
    const local = m.local_start ? " (" + m.local_start.slice(0, 16).replace("T", " ") + "–" + (m.local_end || "").slice(11, 16) + " local)" : "";
    return (m.start ? S.fmtInstant(m.start) + " – " + S.fmtInstant(m.end) : "–") + local;
  }
  function changed(testid, was, now) {
    if (was === now || now === undefined) return el("dd", { "data-testid": testid, text: was || "–" });
    return el("dd", { "data-testid": testid }, el("span", { class: "was", text: was || "–" }), " → ", el("span", { text: now || "–" }));
  }
  function changeSection(change) {
    const before = change.before || {};
    const after = change.after;
    const scope = change.scope ? change.scope.toLowerCase().replace(/_/g, " ") : "";
    const people = (change.attendees || []).map((p) =>
      el("li", { class: "att-" + p.status, "data-testid": "change-attendee", "data-status": p.status },
        el("span", { text: (p.name ? p.name + " <" + p.address + ">" : p.address) + (p.required ? "" : " (optional)") }),
        el("span", { class: "muted", text: " · " + p.status })));
    const recipients = (change.recipients || []).map((r) =>
      el("li", { "data-testid": "change-recipient", text: (r.method || "?") + " → " + (r.address || "?") + (r.sequence !== null && r.sequence !== undefined ? " (SEQUENCE " + r.sequence + ")" : "") }));
    // A <div> grouping dt/dd pairs inside the card's <dl> (allowed by HTML), laid out by the
    // same grid (display: contents).
    return el(
      "div",
      { class: "change", "data-testid": "approval-change", "data-kind": change.kind },
      el("dt", { text: "Change" }),
      el("dd", { "data-testid": "change-kind", text: change.kind + (scope ? " · " + scope : "") + (change.uid ? " · UID " + change.uid : "") }),
      el("dt", { text: "Title" }),
      changed("change-title", before.title, after ? after.title : undefined),
      el("dt", { text: "Before" }),
      el("dd", { "data-testid": "change-before", text: moment(before) }),
      el("dt", { text: "After" }),
      el("dd", { "data-testid": "change-after", text: after ? moment(after) : "removed from the calendar" }),
      before.location || (after && after.location) ? el("dt", { text: "Place" }) : null,
      before.location || (after && after.location) ? changed("change-location", before.location, after ? after.location : undefined) : null,
      el("dt", { text: "Organizer" }),
      el("dd", { "data-testid": "change-organizer", text: change.organizer || "–" }),
      el("dt", { text: "Attendees" }),
      el("dd", {}, people.length ? el("ul", {}, people) : el("span", { class: "muted", text: "none" })),
      el("dt", { text: "Messages" }),
      el("dd", {}, recipients.length ? el("ul", {}, recipients) : el("span", { class: "muted", text: "none" })),
    );
  }

  function approvalCard(a, detail) {
    const request = a.request || {};
    const step = request.step || {};
    const params = step.params || {};
    const change = detail && detail.proposed ? detail.proposed.change : null;
    const what = step.capability ? step.capability + (step.target ? " → " + step.target : "") : step.kind || request.kind || "approval";
    const reason = el("input", { type: "text", class: "reason", placeholder: "reason (optional)", "data-testid": "decision-reason", size: "28" });
    const result = el("span", { class: "muted", "data-testid": "decision-result" });
    const act = async (decision, buttons) => {
      buttons.forEach((b) => (b.disabled = true));
      result.textContent = decision === "approve" ? "Signing approval…" : "Signing rejection…";
      try {
        const after = await S.decide(a.id, decision, reason.value.trim());
        result.textContent = "Done: " + after.status + ".";
        $("decision-status").textContent = "Approval " + a.id + " " + after.status + " by " + after.decided_by + ".";
        await refresh();
      } catch (err) {
        result.textContent = err.message;
        result.className = "bad-text";
        buttons.forEach((b) => (b.disabled = false));
      }
    };
    const approve = el("button", { type: "button", class: "primary", "data-testid": "approve-button", text: "Approve" });
    const reject = el("button", { type: "button", "data-testid": "reject-button", text: "Reject" });
    approve.addEventListener("click", () => act("approve", [approve, reject]));
    reject.addEventListener("click", () => act("reject", [approve, reject]));
    const slot = params.start && params.end ? S.fmtInstant(params.start) + " – " + S.fmtInstant(params.end) : "–";
    return el(
      "article",
      { class: "card", "data-testid": "approval-item", "data-approval-id": a.id },
      el("h3", {}, el("span", { "data-testid": "approval-step", text: (step.key ? step.key + ": " : "") + what })),
      el(
        "dl",
        { class: "summary" },
        el("dt", { text: "Calendar" }),
        el("dd", { "data-testid": "approval-calendar", text: params.calendar_id || "–" }),
        el("dt", { text: "Slot" }),
        el("dd", { "data-testid": "approval-slot", text: slot }),
        el("dt", { text: "Asked by" }),
        el("dd", { "data-testid": "approval-requester", text: a.requester + (a.author && a.author !== a.requester ? " (proposed by " + a.author + ")" : "") }),
        el("dt", { text: "Expires" }),
        el("dd", { "data-testid": "approval-expires", text: S.fmtInstant(a.expires_at) + " " + until(a.expires_at) }),
        el("dt", { text: "Plan" }),
        el("dd", {}, el("a", { href: "plan.html?id=" + encodeURIComponent(a.plan_id), text: a.plan_id })),
        change ? changeSection(change) : null,
      ),
      slotTimeline(params.start, params.end),
      el("div", { class: "controls" }, approve, reject, reason, result),
    );
  }

  async function refreshInbox() {
    const box = $("inbox");
    if (!S.token()) {
      box.replaceChildren(el("p", { class: "muted", text: "Set a token to see open approvals." }));
      $("inbox-count").textContent = "";
      return;
    }
    const open = await S.api("GET", "approvals?status=open");
    $("inbox-count").textContent = "(" + open.length + ")";
    box.replaceChildren();
    if (!open.length) box.append(el("p", { class: "muted", "data-testid": "inbox-empty", text: "Nothing is waiting for a decision." }));
    // Each one's detail says what a change does (before/after); a detail that cannot be read
    // leaves the card as it was.
    const details = await Promise.all(open.map((a) => S.api("GET", "approvals/" + encodeURIComponent(a.id)).catch(() => null)));
    open.forEach((a, i) => box.append(approvalCard(a, details[i])));
  }

  async function refreshPlans() {
    const body = $("plans").querySelector("tbody");
    if (!S.token()) {
      body.replaceChildren(el("tr", {}, el("td", { colspan: "5", class: "muted", text: "Set a token to see plans." })));
      return;
    }
    const plans = await S.api("GET", "plans");
    body.replaceChildren();
    if (!plans.length) body.append(el("tr", {}, el("td", { colspan: "5", class: "muted", text: "No plans yet." })));
    for (const p of plans.slice().reverse()) {
      body.append(
        el(
          "tr",
          { "data-testid": "plan-row", "data-plan-id": p.id },
          el("td", {}, el("a", { href: "plan.html?id=" + encodeURIComponent(p.id), text: p.id }), " r" + p.revision),
          el("td", {}, S.statusBadge(p.status)),
          el("td", { class: "num", text: p.steps_done + " / " + p.steps_total }),
          el("td", { text: p.strategy || "–" }),
          el("td", { class: "when", text: S.fmtInstant(p.updated_at) }),
        ),
      );
    }
  }

  async function refresh() {
    showError("");
    try {
      await refreshInbox();
      await refreshPlans();
    } catch (err) {
      showError(err.message);
    }
  }

  async function loadKey() {
    const state = $("key-state");
    try {
      const id = await S.loadKey($("keyid-input").value.trim(), $("key-input").value);
      $("key-input").value = ""; // the PEM text leaves the page; the key stays in memory only
      state.textContent = "Key " + id + " loaded (in memory only).";
      state.className = "ok-text";
    } catch (err) {
      state.textContent = err.message;
      state.className = "bad-text";
    }
  }

  $("key-file").addEventListener("change", async (event) => {
    const file = event.target.files && event.target.files[0];
    if (file) $("key-input").value = await file.text();
    event.target.value = "";
  });
  $("key-load").addEventListener("click", loadKey);
  $("key-forget").addEventListener("click", () => {
    S.forgetKey();
    $("key-state").textContent = "No key loaded.";
    $("key-state").className = "muted";
  });
  S.wireToken(refresh);
  refresh().finally(() => {
    document.body.dataset.ready = "true";
  });
})();
