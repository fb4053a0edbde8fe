// cerebri Lab: the shared timeline pieces (time zone formatting, a dated axis, bars whose
// labels fit or show on hover). Plain JavaScript, no network, no build step.
"use strict";

window.CerebriTimeline = (function () {
  const MINUTE = 60 * 1000;
  const HOUR = 60 * MINUTE;
  const DAY = 24 * HOUR;
  const formatters = new Map();

  function formatter(zone) {
    if (!formatters.has(zone)) {
      formatters.set(zone, new Intl.DateTimeFormat("en-GB", {
        timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit",
        hour: "2-digit", minute: "2-digit", weekday: "short", hourCycle: "h23",
      }));
    }
    return formatters.get(zone);
  }

  // The local calendar fields of an instant (milliseconds) in an IANA zone.
  function parts(ms, zone) {
    const out = {};
    for (const p of formatter(zone).formatToParts(new Date(ms))) out[p.type] = p.value;
    return out;
  }

  // "2026-10-05 09:30" (withDate) or "09:30", local in the zone.
  function format(ms, zone, withDate) {
    const p = parts(ms, zone);
    const time = p.hour + ":" + p.minute;
    return withDate ? p.year + "-" + p.month + "-" + p.day + " " + time : time;
  }

  // "Mon 2026-10-05", local in the zone.
  function day(ms, zone) {
    const p = parts(ms, zone);
    return p.weekday + " " + p.year + "-" + p.month + "-" + p.day;
  }

  function zoneLabel(zone) {
    return zone === "UTC" ? "UTC" : zone.replace(/_/g, " ");
  }

  function isValidZone(zone) {
    try {
      formatter(zone);
      return true;
    } catch (_) {
      return false;
    }
  }

  // Axis ticks for [t0, t1): local whole hours (every 1-12 h) and local midnights, at most
  // about `most` hour ticks. Returns [{ms, label, midnight}].
  function ticks(t0, t1, zone, most) {
    const span = Math.max(t1 - t0, 1);
    const hours = [1, 2, 3, 6, 12, 24, 48, 96, 168].find((h) => span / (h * HOUR) <= most) || 336;
    const scan = span <= 21 * DAY ? 15 * MINUTE : HOUR;
    const out = [];
    let lastDay = null;
    for (let t = Math.ceil(t0 / scan) * scan; t < t1; t += scan) {
      const p = parts(t, zone);
      if (p.minute !== "00") continue;
      const hour = Number(p.hour);
      const dayKey = p.year + p.month + p.day;
      const midnight = hour === 0 && dayKey !== lastDay;
      if (midnight) lastDay = dayKey;
      const dayIndex = Math.floor(Date.UTC(+p.year, +p.month - 1, +p.day) / DAY);
      const onStep = hours < 24 ? hour % hours === 0 : midnight && dayIndex % (hours / 24) === 0;
      if (onStep || midnight) out.push({ ms: t, label: p.hour + ":" + p.minute, midnight, onStep });
    }
    return out;
  }

  // Fill an axis track (and, on a multi-day span, a day track above it) for [t0, t1).
  function drawAxis(dayTrack, hourTrack, t0, t1, zone) {
    const span = Math.max(t1 - t0, 1);
    const left = (t) => ((t - t0) / span) * 100;
    const place = (node, pct) => {
      node.style.left = pct + "%";
      if (pct > 90) node.classList.add("flip"); // keep the label inside the track
      return node;
    };
    const multiDay = span > DAY || day(t0, zone) !== day(t1 - 1, zone);
    if (dayTrack) {
      const first = document.createElement("span");
      first.className = "tick day first";
      first.textContent = day(t0, zone);
      first.title = day(t0, zone) + " (" + zoneLabel(zone) + ")";
      dayTrack.append(place(first, 0));
    }
    const all = ticks(t0, t1, zone, 12);
    const minGap = dayTrack ? 7 : 0; // percent: a day label needs room beside the first one
    for (const tick of all) {
      if (tick.midnight && dayTrack && multiDay && left(tick.ms) > minGap) {
        const d = document.createElement("span");
        d.className = "tick day";
        d.textContent = day(tick.ms, zone);
        d.title = d.textContent + " (" + zoneLabel(zone) + ")";
        d.dataset.testid = "axis-day";
        d.setAttribute("data-testid", "axis-day");
        dayTrack.append(place(d, left(tick.ms)));
      }
      if (!tick.onStep) continue;
      const h = document.createElement("span");
      h.className = "tick";
      h.textContent = tick.midnight && !dayTrack && multiDay ? day(tick.ms, zone) : tick.label;
      h.title = format(tick.ms, zone, true) + " " + zoneLabel(zone);
      hourTrack.append(place(h, left(tick.ms)));
    }
    return multiDay;
  }

  // After layout: a bar whose text does not fit shows none (the title keeps it for hover).
  function fitLabels(root) {
    for (const bar of root.querySelectorAll(".bar[data-label]")) {
      bar.textContent = bar.dataset.label;
      if (bar.scrollWidth > bar.clientWidth + 1) {
        bar.classList.add("clipped");
        if (bar.clientWidth < 28) bar.textContent = "";
      }
    }
  }

  return { DAY, HOUR, format, day, parts, ticks, drawAxis, fitLabels, zoneLabel, isValidZone };
})();
