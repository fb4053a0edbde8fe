// cerebri Lab: the week grid of an OPTIMIZE answer (a batch of meetings). Days are columns
// and hours rows, in the request's zone (the timezone of the target with the smallest id,
// as `cerebri optimize` prints it); every meeting of the batch is placed: new, moved (its
// old place ghosted, "moved from ..."), kept. A table says the same in text. Plain
// JavaScript, no network: it reads the request and the PlanningResult it is given.
"use strict";

window.CerebriBatch = (function () {
  const T = window.CerebriTimeline;
  const ROW_PX = 44; // one hour
  const MINUTE = 60 * 1000;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k === "style") node.setAttribute("style", v);
      else node.setAttribute(k, v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  // The zone of the batch's local times: the timezone of the target with the smallest id.
  function batchZone(request) {
    const objects = new Map(((request.context || {}).objects || []).map((o) => [o.id, o]));
    const targets = [...new Set(request.target_ids || [])].sort();
    for (const id of targets) {
      const obj = objects.get(id);
      if (obj && obj.timezone && T.isValidZone(obj.timezone)) return obj.timezone;
    }
    return "UTC";
  }

  // {date: "YYYY-MM-DD", weekday, minutes: minutes since local midnight} of an instant.
  function local(ms, zone) {
    const p = T.parts(ms, zone);
    return { date: p.year + "-" + p.month + "-" + p.day, weekday: p.weekday, minutes: Number(p.hour) * 60 + Number(p.minute), hm: p.hour + ":" + p.minute };
  }

  // Where an existing event was before: its KNOWN range in the request.
  function knownRanges(request) {
    const out = new Map();
    for (const obj of ((request.context || {}).objects || [])) {
      const k = obj.time && obj.time.value && obj.time.value.knowledge;
      if (k && k.state === "KNOWN" && k.data && k.data.start) out.set(obj.id, k.data);
    }
    return out;
  }

  const STATUS_WORDS = {
    OPTIMAL: () => "proven optimal",
    FEASIBLE: (b) => "best found within the budget (bound " + b.bound + ")",
    INFEASIBLE: () => "proven infeasible; these rules conflict:",
    UNKNOWN: () => "unknown: the work limit ran out before any placement",
  };

  function statusLine(batch) {
    if (!batch) return "not planned: the request does not validate";
    const words = STATUS_WORDS[batch.status];
    return words ? words(batch) : batch.status;
  }

  function termText(t) {
    const who = [t.name, t.meeting_id, t.other, t.person ? "person " + t.person : null].filter((x) => x !== null && x !== undefined);
    return who.join(" ") + ": amount " + t.amount + ", cost " + t.cost;
  }

  function changeOf(a) {
    return a.new ? "new" : a.moved ? "moved" : "kept";
  }

  // The items to draw: every assignment, and a ghost at the old place of each moved one.
  function items(request, batch, zone) {
    const titles = new Map(((request.batch || {}).meetings || []).map((m) => [m.object_id, m.title || ""]));
    const before = knownRanges(request);
    const terms = new Map();
    for (const t of batch.terms || []) {
      for (const id of [t.meeting_id, t.other]) {
        if (id === null || id === undefined) continue;
        if (!terms.has(id)) terms.set(id, []);
        terms.get(id).push(t);
      }
    }
    return (batch.assignments || []).map((a) => {
      const start = Date.parse(a.range.start);
      const end = Date.parse(a.range.end);
      const was = a.moved ? before.get(a.object_id) : null;
      return {
        id: a.object_id,
        title: titles.get(a.object_id) || a.object_id,
        room: a.room_id,
        change: changeOf(a),
        start, end,
        from: was ? { start: Date.parse(was.start), end: Date.parse(was.end) } : null,
        terms: terms.get(a.object_id) || [],
        zone,
      };
    });
  }

  // Local dates of the horizon [t0, t1) in the zone, and the hour rows that hold every item.
  function frame(request, list, zone) {
    const range = (request.scope || {}).time_range || {};
    let t0 = Date.parse(range.start);
    let t1 = Date.parse(range.end);
    const spans = list.flatMap((i) => (i.from ? [i, i.from] : [i]));
    if (Number.isNaN(t0) || Number.isNaN(t1) || t1 <= t0) {
      t0 = Math.min(...spans.map((s) => s.start));
      t1 = Math.max(...spans.map((s) => s.end));
    }
    const days = [];
    for (let t = t0; t < t1; t += 6 * 60 * MINUTE) {
      const l = local(t, zone);
      if (!days.some((d) => d.date === l.date)) days.push({ date: l.date, weekday: l.weekday });
    }
    let low = 8 * 60;
    let high = 18 * 60;
    for (const s of spans) {
      const a = local(s.start, zone);
      const b = local(s.end - 1, zone);
      low = Math.min(low, a.minutes);
      high = Math.max(high, b.minutes + 1);
    }
    return { days, first: Math.floor(low / 60), last: Math.min(Math.ceil(high / 60), 24) };
  }

  function when(ms, zone) {
    const l = local(ms, zone);
    return l.weekday + " " + l.date + " " + l.hm;
  }

  function block(kind, item, span, f, zone) {
    const a = local(span.start, zone);
    const minutes = Math.max((span.end - span.start) / MINUTE, 15);
    const top = ((a.minutes - f.first * 60) / 60) * ROW_PX;
    const height = Math.max((minutes / 60) * ROW_PX - 2, 14);
    const endHm = local(span.end, zone).hm;
    const costs = item.terms.map(termText);
    const ghost = kind === "ghost";
    const label = ghost
      ? item.title + " was here (" + a.hm + "–" + endHm + "); moved to " + when(item.start, zone)
      : item.title + ", " + a.hm + "–" + endHm + (item.room ? ", room " + item.room : "") + ", " + item.change +
        (item.from ? ", moved from " + when(item.from.start, zone) : "");
    return el(
      "div",
      {
        class: "batch-item " + (ghost ? "batch-ghost" : "batch-" + item.change),
        style: "top:" + top + "px;height:" + height + "px",
        title: label + (costs.length && !ghost ? "\n" + costs.join("\n") : ""),
        "data-testid": ghost ? "batch-ghost" : "batch-item",
        "data-object-id": item.id,
        "data-change": ghost ? "was" : item.change,
        "data-start-local": a.hm,
        "data-end-local": endHm,
        "aria-hidden": "true", // the table below is the text alternative
      },
      el("strong", { text: item.title }),
      el("span", { class: "batch-when", text: " " + a.hm + "–" + endHm }),
      item.room && !ghost ? el("span", { class: "batch-room", "data-testid": "batch-room", text: " · " + item.room }) : null,
      ghost
        ? el("span", { class: "batch-moved-note", text: " → moved to " + when(item.start, zone) })
        : item.from
          ? el("span", { class: "batch-moved-note", "data-testid": "batch-moved-from", text: " ← moved from " + when(item.from.start, zone) })
          : null,
    );
  }

  // Side by side what overlaps in a column (a moved event's old place under the meeting that
  // took it, two meetings at once): each block gets a lane and the lane count of its cluster.
  function lanes(blocks) {
    const sorted = blocks.slice().sort((a, b) => a.span.start - b.span.start || (a.kind === "ghost" ? -1 : 1));
    let cluster = [];
    let ends = [];
    let clusterEnd = -Infinity;
    const close = () => cluster.forEach((b) => (b.of = ends.length));
    for (const b of sorted) {
      if (b.span.start >= clusterEnd) {
        close();
        cluster = [];
        ends = [];
      }
      let lane = ends.findIndex((end) => end <= b.span.start);
      if (lane < 0) lane = ends.push(0) - 1;
      ends[lane] = b.span.end;
      b.lane = lane;
      cluster.push(b);
      clusterEnd = Math.max(clusterEnd === -Infinity ? b.span.end : clusterEnd, b.span.end);
    }
    close();
    return sorted;
  }

  function grid(list, f, zone) {
    const hours = f.last - f.first;
    const axis = el("div", { class: "batch-axis", style: "height:" + hours * ROW_PX + "px" });
    for (let h = f.first; h < f.last; h++) {
      const hh = String(h).padStart(2, "0");
      axis.append(el("div", { class: "batch-hour", "data-testid": "batch-hour", "data-hour": hh, style: "top:" + (h - f.first) * ROW_PX + "px", text: hh + ":00" }));
    }
    const head = el("div", { class: "batch-head" }, el("div", { class: "batch-corner", text: T.zoneLabel(zone) }));
    const body = el("div", { class: "batch-body" }, axis);
    for (const d of f.days) {
      head.append(el("div", { class: "batch-dayhead", "data-testid": "batch-day", "data-day": d.date, text: d.weekday + " " + d.date.slice(5) }));
      const column = el("div", { class: "batch-column", "data-testid": "batch-column", "data-day": d.date, style: "height:" + hours * ROW_PX + "px" });
      const here = [];
      for (const item of list) {
        if (item.from && local(item.from.start, zone).date === d.date) here.push({ kind: "ghost", item, span: item.from });
        if (local(item.start, zone).date === d.date) here.push({ kind: "item", item, span: item });
      }
      for (const b of lanes(here)) {
        const node = block(b.kind, b.item, b.span, f, zone);
        node.style.left = "calc(" + (100 * b.lane) / b.of + "% + 3px)";
        node.style.width = "calc(" + 100 / b.of + "% - 6px)";
        column.append(node);
      }
      body.append(column);
    }
    const columns = "6.5em repeat(" + f.days.length + ", minmax(7em, 1fr))";
    head.style.gridTemplateColumns = columns;
    body.style.gridTemplateColumns = columns;
    return el("div", { class: "batch-grid", "data-testid": "batch-grid", "aria-hidden": "true" }, head, body);
  }

  function table(list, zone) {
    const rows = list.map((i) =>
      el("tr", { "data-testid": "batch-row", "data-object-id": i.id, "data-change": i.change },
        el("td", { text: i.id }),
        el("td", { text: i.title }),
        el("td", { "data-testid": "batch-row-when", text: when(i.start, zone) + "–" + local(i.end, zone).hm }),
        el("td", { text: i.room || "–" }),
        el("td", { text: i.change }),
        el("td", { "data-testid": "batch-row-from", text: i.from ? when(i.from.start, zone) + "–" + local(i.from.end, zone).hm : "–" }),
        el("td", {}, i.terms.length ? el("ul", {}, i.terms.map((t) => el("li", { text: termText(t) }))) : "–"),
      ));
    return el("div", { class: "table-wrap" },
      el("table", { "data-testid": "batch-table" },
        el("caption", { text: "Every meeting of the batch, times in " + T.zoneLabel(zone) }),
        el("thead", {}, el("tr", {}, ["Meeting", "Title", "When", "Room", "Change", "Moved from", "Costs"].map((h) => el("th", { scope: "col", text: h })))),
        el("tbody", {}, rows)));
  }

  // Fill `box` with the batch's status, score, grid and table; hide it for other answers.
  function render(box, request, result) {
    box.replaceChildren();
    const isBatch = request && request.operation === "OPTIMIZE";
    box.closest("section").hidden = !isBatch;
    if (!isBatch) return;
    const batch = result.batch || null;
    const zone = batchZone(request);
    box.append(el("p", { class: "batch-status", "data-testid": "batch-status", "data-status": batch ? batch.status : "NOT_PLANNED", text: "Status: " + statusLine(batch) }));
    if (batch && batch.status === "INFEASIBLE") {
      box.append(el("ul", { class: "issues", "data-testid": "batch-conflict" },
        (batch.conflict || []).map((r) => el("li", { "data-testid": "batch-conflict-rule", text: r.kind + ": " + r.ids.join(", ") }))));
    }
    if (!batch) {
      const issues = ((result.validation || {}).issues || []).map((i) => (typeof i === "string" ? i : JSON.stringify(i)));
      box.append(el("ul", { class: "issues" }, issues.map((t) => el("li", { text: t }))));
      return;
    }
    const score = batch.score;
    box.append(el("p", { "data-testid": "batch-score", text: score ? "Score: hard " + score.hard + ", medium " + score.medium + ", soft " + score.soft : "Score: none" }));
    const list = items(request, batch, zone);
    if (!list.length) return;
    box.append(
      el("div", { class: "legend" },
        el("span", {}, el("i", { class: "sw batch-new" }), "new"),
        el("span", {}, el("i", { class: "sw batch-moved" }), "moved (its new place)"),
        el("span", {}, el("i", { class: "sw batch-ghost" }), "where a moved event was"),
        el("span", {}, el("i", { class: "sw batch-kept" }), "kept"),
      ),
      grid(list, frame(request, list, zone), zone),
      el("p", { class: "hint", text: "Hover a meeting for its costs. The table says the same as the grid." }),
      table(list, zone),
    );
  }

  return { render, batchZone };
})();
