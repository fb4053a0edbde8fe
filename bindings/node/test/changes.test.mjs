// Event changes through Node: rescheduleEvent, cancelEvent and updateEvent answer exactly the
// bytes of POST /v1/events/reschedule, /cancel and /update. The pytest wrapper
// (tests/bindings/test_node.py) computes the HTTP bodies, checks them against the CLI's
// `--json` and `--emit-request` for the same calendars, and names them in the manifest
// CEREBRI_NODE_CHANGES: [{op, name, input, expected}].
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, test } from "node:test";
import {
  CerebriError,
  call,
  cancelEvent,
  close,
  createClient,
  rescheduleEvent,
  updateEvent,
} from "../index.mjs";

const manifestPath = process.env.CEREBRI_NODE_CHANGES;
if (!manifestPath) {
  throw new Error("CEREBRI_NODE_CHANGES is not set: run these tests through tests/bindings/test_node.py");
}
const cases = JSON.parse(readFileSync(manifestPath, "utf8"));
const functions = {
  reschedule_event: rescheduleEvent,
  cancel_event: cancelEvent,
  update_event: updateEvent,
};
const methods = {
  reschedule_event: "rescheduleEvent",
  cancel_event: "cancelEvent",
  update_event: "updateEvent",
};
const client = createClient();
after(() => Promise.all([close(), client.close()]));

test("the manifest covers the three operations", () => {
  for (const op of Object.keys(functions)) {
    assert.ok(cases.some((c) => c.op === op), op);
  }
});

for (const { op, name, input, expected } of cases) {
  test(`${op} ${name}: the HTTP bytes, by call, module function and client method`, async () => {
    const text = readFileSync(input, "utf8");
    const want = readFileSync(expected, "utf8");
    const answer = await call(op, text);
    assert.equal(answer.text, want);
    assert.deepEqual(await functions[op](JSON.parse(text)), JSON.parse(want));
    assert.deepEqual(await client[methods[op]](text), JSON.parse(want));
  });
}

test("a refusal carries the route's code and pointer", async () => {
  const [first] = cases;
  const body = { ...JSON.parse(readFileSync(first.input, "utf8")), uid: "nobody@example.com" };
  await assert.rejects(functions[first.op](body), (error) => {
    assert.ok(error instanceof CerebriError);
    assert.equal(error.code, "calendar.not_found");
    assert.equal(error.path, "/uid");
    return true;
  });
  await assert.rejects(cancelEvent({ uid: "x", calendars: [] }), (error) => {
    assert.equal(error.code, "input.invalid_option");
    assert.equal(error.path, "/calendars");
    return true;
  });
});

test("change bodies have find-slot's limit, not the planning routes'", async () => {
  const [first] = cases;
  const body = JSON.parse(readFileSync(first.input, "utf8"));
  // padded past 256 KiB with an optional calendar that holds nothing: still answered
  const padding = "X-PAD:" + "a".repeat(70) + "\r\n";
  const ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//pad//EN\r\n" + padding.repeat(4000) + "END:VCALENDAR\r\n";
  const padded = { ...body, calendars: [...body.calendars, { id: "pad", ics, optional: true }] };
  assert.ok(JSON.stringify(padded).length > 256 * 1024);
  const answer = await call(first.op, padded);
  assert.equal(answer.value.event.uid, body.uid);
  await assert.rejects(call(first.op, padded, { maxInputBytes: 1024 }), (error) => {
    assert.equal(error.code, "bridge.input_too_large");
    return true;
  });
});
