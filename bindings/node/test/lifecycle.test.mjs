// Calls always settle and processes always go: children whose own children outlive them,
// a bridge dying while the client closes, arguments Node cannot send, raised input limits.
import assert from "node:assert/strict";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import {
  CerebriError,
  MAX_FIND_SLOT_BYTES,
  MAX_INPUT_BYTES,
  close,
  createClient,
  findSlot,
  plan,
} from "../index.mjs";
import { HANG_TIMEOUTS_MS, allGone, alive, example, fakeOptions, pidsIn, tempDir } from "./helpers.mjs";

const clients = [];
function client(options) {
  const made = createClient(options);
  clients.push(made);
  return made;
}
after(() => Promise.all([close(), ...clients.map((c) => c.close())]));

async function refused(promise, code) {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof CerebriError, `not a CerebriError: ${error}`);
    assert.equal(error.code, code, error.message);
    return true;
  });
}

/** A shell script cerebri that starts LAUNCH in the background (pid to PIDS), then exits 0. */
function leavesBehind(launch) {
  const dir = tempDir();
  const bin = join(dir, "cerebri");
  const pids = join(dir, "pids");
  writeFileSync(bin, `#!/bin/sh\n${launch} &\necho $! >> "${pids}"\nexit 0\n`);
  chmodSync(bin, 0o755);
  return { bin, pids };
}

/** TEXT padded with spaces after its JSON to exactly SIZE bytes. */
function padded(text, size) {
  const trimmed = text.trimEnd();
  return trimmed + " ".repeat(size - Buffer.byteLength(trimmed));
}

for (const mode of ["bridge", "spawn"]) {
  test(`${mode}: a child that exits leaving a grandchild on its stdout settles, and the grandchild goes`, async () => {
    const { bin, pids } = leavesBehind("sleep 1000");
    const left = client({ mode, bin, timeoutMs: 120_000 });
    // the child exits 0 without answering: a crash, not a wait for the 120 s timeout
    await refused(left.plan(example("design-review")), "bridge.crashed");
    await left.close();
    const grandchild = pidsIn(pids);
    assert.equal(grandchild.length, 1);
    assert.ok(await allGone(grandchild), `still running: ${grandchild}`);
  });

  test(`${mode}: a grandchild that left the process group cannot keep a call or close() open`, async () => {
    // setsid puts the sleep out of reach of the group kill; it holds stdout open for ever
    const { bin, pids } = leavesBehind("setsid sleep 1000");
    const left = client({ mode, bin, timeoutMs: 120_000 });
    try {
      await refused(left.plan(example("design-review")), "bridge.crashed");
      await left.close();
    } finally {
      for (const pid of pidsIn(pids)) if (alive(pid)) process.kill(pid, "SIGKILL");
    }
  });

  test(`${mode}: the module functions settle too, and the module's own client closes`, async () => {
    const { bin, pids } = leavesBehind("sleep 1000");
    await refused(plan(example("design-review"), { mode, bin, timeoutMs: 120_000 }), "bridge.crashed");
    assert.ok(await allGone(pidsIn(pids)));
  });

  test(`${mode}: after a timeout, close() waits until the stopped child and its group are gone`, async () => {
    for (const timeoutMs of HANG_TIMEOUTS_MS) {
      const { pids, options } = fakeOptions("hang", { mode });
      const hung = client(options);
      await refused(hung.plan(example("design-review"), { timeoutMs }), "bridge.timeout");
      const hungWhenStopped = pidsIn(pids).length === 2; // the child and its grandchild
      await hung.close();
      const gone = pidsIn(pids);
      assert.ok(await allGone(gone), `still running: ${gone}`); // a shorter try too
      if (hungWhenStopped) {
        assert.equal(gone.length, 2);
        return;
      }
    }
    assert.fail(`the fake had not hung within ${HANG_TIMEOUTS_MS.at(-1)} ms`);
  });

  test(`${mode}: maxInputBytes above ${MAX_INPUT_BYTES} reaches the cerebri process`, async () => {
    const raised = client({ mode, maxInputBytes: 2 * MAX_INPUT_BYTES });
    const big = padded(example("design-review"), MAX_INPUT_BYTES + 4096);
    const answer = await raised.call("plan", big);
    const plain = await client({ mode }).call("plan", example("design-review"));
    assert.equal(answer.text, plain.text);
    // through the module functions: a client of its own, started with that limit
    const value = await plan(big, { maxInputBytes: 2 * MAX_INPUT_BYTES });
    assert.deepEqual(value, plain.value);
    // a call may lower its client's limit, never raise it: that process would refuse
    await refused(raised.call("plan", big, { maxInputBytes: 4 * MAX_INPUT_BYTES }), "bridge.invalid_argument");
    await refused(raised.call("plan", big, { maxInputBytes: MAX_INPUT_BYTES }), "bridge.input_too_large");
  });
}

function ics(uid, start, end) {
  const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//cerebri tests//node//EN", "BEGIN:VEVENT"];
  lines.push(`UID:${uid}`, "DTSTAMP:20260101T000000Z", `DTSTART:${start}`, `DTEND:${end}`);
  lines.push("SUMMARY:Busy", "END:VEVENT", "END:VCALENDAR");
  return lines.join("\r\n") + "\r\n";
}

test(`findSlot accepts bodies up to ${MAX_FIND_SLOT_BYTES} bytes, as POST /v1/find-slot`, async () => {
  const body = JSON.stringify({
    calendars: [{ id: "alice", ics: ics("a1", "20261005T073000Z", "20261005T090000Z") }],
    duration: "45m",
    between: "2026-10-05T08:00/2026-10-06T18:00",
    tz: "Europe/Berlin",
    working_hours: "09:00-17:00",
    granularity: "15m",
    top: 5,
  });
  for (const mode of ["bridge", "spawn"]) {
    const slots = client({ mode });
    const plain = await slots.call("find_slot", body);
    assert.ok(plain.value.slots.length > 0);
    const big = await slots.call("find_slot", padded(body, MAX_FIND_SLOT_BYTES));
    assert.equal(big.text, plain.text);
    await refused(slots.call("find_slot", padded(body, MAX_FIND_SLOT_BYTES + 1)), "bridge.input_too_large");
    // the other operations keep their own limit
    await refused(slots.call("plan", padded(body, MAX_INPUT_BYTES + 1)), "bridge.input_too_large");
  }
  const viaModule = await findSlot(padded(body, MAX_INPUT_BYTES + 1));
  assert.ok(viaModule.slots.length > 0);
});

test("a bridge that dies during close() fails the queued calls at once", async () => {
  const { pids, options } = fakeOptions("crash", { timeoutMs: 120_000 });
  const dying = client(options);
  const calls = [1, 2, 3].map(() => dying.plan(example("design-review")).catch((error) => error));
  const closed = dying.close();
  const errors = await Promise.all(calls);
  await closed;
  assert.deepEqual(errors.map((e) => e.code), ["bridge.crashed", "bridge.closed", "bridge.closed"]);
  assert.ok(errors.every((e) => e instanceof CerebriError));
  assert.equal(pidsIn(pids).length, 1); // no process was started for the queued calls
  assert.ok(await allGone(pidsIn(pids)));
});

test("timeoutMs above 2**31-1 ms is refused: Node would fire the timer at once", async () => {
  for (const bad of [2 ** 31, Infinity, 1.5]) {
    assert.throws(() => createClient({ timeoutMs: bad }), (e) => e.code === "bridge.invalid_argument");
    await refused(client().plan(example("design-review"), { timeoutMs: bad }), "bridge.invalid_argument");
    await refused(plan(example("design-review"), { timeoutMs: bad }), "bridge.invalid_argument");
  }
  const { options } = fakeOptions("echo", { timeoutMs: 2 ** 31 - 1 });
  const answer = await client(options).call("plan", "{}");
  assert.equal(answer.value.op, "plan");
});

test("a BigInt or a cycle in the request is bridge.invalid_argument", async () => {
  const cyclic = { scope: {} };
  cyclic.scope.self = cyclic;
  for (const request of [{ n: 1n }, cyclic, { toJSON() { throw new Error("no"); } }]) {
    await refused(plan(request), "bridge.invalid_argument");
    await refused(client({ mode: "spawn" }).plan(request), "bridge.invalid_argument");
  }
  // nothing was half-sent: the shared bridge still answers
  const valid = await plan(example("design-review"));
  assert.equal(typeof valid.outcome, "string");
});

test("bad limits are bridge.invalid_argument", () => {
  for (const name of ["maxInputBytes", "maxFindSlotBytes", "maxOutputBytes", "maxProcesses"]) {
    assert.throws(() => createClient({ [name]: 0 }), (e) => e.code === "bridge.invalid_argument");
  }
});
