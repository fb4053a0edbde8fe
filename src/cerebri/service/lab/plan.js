// cerebri Lab: one plan's page (plan.html?id=<plan id>): its step graph with each step's
// status, its revisions, observations and predictions; refreshed every 1.5 s.
"use strict";

(function () {
  const S = window.cerebriStore;
  const { el } = S;
  const $ = (id) => document.getElementById(id);
  const POLL_MS = 1500;
  const planId = new URLSearchParams(location.search).get("id") || "";
  let lastText = null;
  let timer = null;

  function showError(text) {
    $("plan-error").textContent = text || "";
    $("plan-error").hidden = !text;
  }

  // Depth of each step: 0 without dependencies, else one more than its deepest dependency.
  function levels(steps) {
    const byKey = new Map(steps.map((s) => [s.key, s]));
    const depth = new Map();
    const visit = (key, seen) => {
      if (depth.has(key)) return depth.get(key);
      if (seen.has(key)) return 0; // a cycle never validates; do not loop on one anyway
      seen.add(key);
      const deps = ((byKey.get(key) || {}).spec || {}).depends_on || [];
      const d = deps.length ? 1 + Math.max(...deps.map((k) => (byKey.has(k) ? visit(k, seen) : 0))) : 0;
      depth.set(key, d);
      return d;
    };
    steps.forEach((s) => visit(s.key, new Set()));
    return depth;
  }

  function stepNode(step) {
    const spec = step.spec || {};
    const what = spec.capability ? spec.capability + (spec.target ? " → " + spec.target : "") : step.kind;
    return el(
      "div",
      { class: "node status-" + step.status, "data-testid": "step-node", "data-step-key": step.key, id: "node-" + step.key },
      el("div", { class: "node-head" }, el("strong", { text: step.key }), " ", S.statusBadge(step.status)),
      el("div", { class: "node-what", text: what }),
      el("div", { class: "muted small", text: "attempts " + step.attempts + (step.attempt_history.some((a) => a.open) ? " (one running)" : "") }),
      step.status_reason ? el("div", { class: "muted small", "data-testid": "step-reason", text: step.status_reason }) : null,
      step.approval_id ? el("div", { class: "small" }, "approval ", el("a", { href: "inbox.html", text: step.approval_id.slice(0, 8) })) : null,
    );
  }

  function drawEdges(box, steps) {
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("class", "edges");
    const origin = box.getBoundingClientRect();
    svg.setAttribute("width", String(box.scrollWidth));
    svg.setAttribute("height", String(box.scrollHeight));
    for (const step of steps) {
      for (const dep of (step.spec || {}).depends_on || []) {
        const a = document.getElementById("node-" + dep);
        const b = document.getElementById("node-" + step.key);
        if (!a || !b) continue;
        const ra = a.getBoundingClientRect();
        const rb = b.getBoundingClientRect();
        const line = document.createElementNS("http://www.w3.org/2000/svg", "line");
        line.setAttribute("x1", String(ra.right - origin.left));
        line.setAttribute("y1", String(ra.top + ra.height / 2 - origin.top));
        line.setAttribute("x2", String(rb.left - origin.left));
        line.setAttribute("y2", String(rb.top + rb.height / 2 - origin.top));
        line.setAttribute("data-testid", "step-edge");
        svg.append(line);
      }
    }
    box.prepend(svg);
  }

  function renderGraph(plan) {
    const box = $("graph");
    const steps = plan.steps || [];
    box.replaceChildren();
    if (!steps.length) {
      box.append(el("p", { class: "muted", text: plan.status === "draft" ? "A draft that failed validation has no steps." : "No steps." }));
      return;
    }
    const depth = levels(steps);
    const columns = [];
    for (const s of steps) {
      const d = depth.get(s.key) || 0;
      (columns[d] = columns[d] || []).push(s);
    }
    for (const column of columns) box.append(el("div", { class: "column" }, (column || []).map(stepNode)));
    drawEdges(box, steps);
  }

  function render(plan) {
    $("plan-title").textContent = plan.id + " (revision " + plan.revision + ")";
    $("plan-status").replaceChildren(S.statusBadge(plan.status));
    $("plan-objective").textContent = plan.objective || "–";
    $("plan-requester").textContent = plan.requester || "–";
    $("plan-strategy").textContent = plan.strategy || "–";
    $("plan-progress").textContent = plan.steps_done + " / " + plan.steps_total;
    $("plan-reason").textContent = plan.status_reason || "–";
    const revisions = $("revisions");
    revisions.replaceChildren();
    for (const r of plan.revisions || []) {
      const label = r.id === plan.id ? el("strong", { text: r.id }) : el("a", { href: "plan.html?id=" + encodeURIComponent(r.id), text: r.id });
      revisions.append(el("li", { "data-testid": "revision" }, "r" + r.revision + " ", label, " ", S.statusBadge(r.status)));
    }
    renderGraph(plan);
    const body = $("observations").querySelector("tbody");
    body.replaceChildren();
    const shown = (plan.steps || []).filter((s) => s.observation !== null || s.result !== null || (s.attempt_history || []).length);
    if (!shown.length) body.append(el("tr", {}, el("td", { colspan: "4", class: "muted", text: "Nothing observed yet." })));
    for (const s of shown) {
      const attempts = (s.attempt_history || []).map((a) => "#" + a.number + " " + (a.open ? "running" : a.outcome || "?")).join(", ");
      body.append(
        el(
          "tr",
          { "data-testid": "observation-row", "data-step-key": s.key },
          el("td", { text: s.key }),
          el("td", {}, el("code", { text: s.observation === null ? "–" : JSON.stringify(s.observation) })),
          el("td", {}, el("code", { text: s.result === null ? "–" : JSON.stringify(s.result) })),
          el("td", { text: attempts || "–" }),
        ),
      );
    }
    const predictions = $("predictions");
    predictions.replaceChildren();
    for (const p of plan.predictions || []) {
      predictions.append(el("li", { "data-testid": "prediction" }, S.statusBadge(p.status), " due " + S.fmtInstant(p.due_at) + ": " + JSON.stringify(p.expectation)));
    }
    const closed = ["completed", "failed", "abandoned", "superseded", "draft"].includes(plan.status);
    $("cancel-plan").disabled = closed;
  }

  async function poll() {
    if (!planId) {
      showError("No plan id: open this page as plan.html?id=<plan id> (the plans list links here).");
      return;
    }
    if (!S.token()) {
      showError("Set a token to see this plan.");
      return;
    }
    try {
      const plan = await S.api("GET", "plans/" + encodeURIComponent(planId));
      showError("");
      const text = JSON.stringify(plan);
      if (text !== lastText) {
        lastText = text;
        render(plan);
      }
      $("refresh-state").textContent = "Refreshed " + new Date().toISOString().slice(11, 19) + " UTC.";
      document.body.dataset.loaded = "true";
    } catch (err) {
      showError(err.message);
    }
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      await poll();
      schedule();
    }, POLL_MS);
  }

  $("cancel-plan").addEventListener("click", async () => {
    if (!confirm("Cancel plan " + planId + "? Its open steps stop and its open approvals are withdrawn.")) return;
    try {
      await S.api("POST", "plans/" + encodeURIComponent(planId) + "/cancel", {});
      await poll();
    } catch (err) {
      showError(err.message);
    }
  });
  S.wireToken(() => {
    lastText = null;
    poll();
  });
  poll().finally(() => {
    document.body.dataset.ready = "true";
    schedule();
  });
})();
