// The same bytes through Node as through the CLI and HTTP. The pytest wrapper
// (tests/bindings/test_node.py) computes the HTTP bodies, checks the CLI against them and
// names them in the manifest CEREBRI_NODE_EXPECTED: [{op, name, input, expected}].
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, test } from "node:test";
import { call, close, createClient } from "../index.mjs";

const manifestPath = process.env.CEREBRI_NODE_EXPECTED;
if (!manifestPath) {
  throw new Error("CEREBRI_NODE_EXPECTED is not set: run these tests through tests/bindings/test_node.py");
}
const cases = JSON.parse(readFileSync(manifestPath, "utf8"));
const spawned = createClient({ mode: "spawn" });
after(() => Promise.all([close(), spawned.close()]));

test("the manifest covers the eight examples for plan and validate", () => {
  for (const op of ["plan", "validate"]) {
    assert.equal(cases.filter((c) => c.op === op).length, 8);
  }
  assert.ok(cases.some((c) => c.op === "temporal"));
  assert.ok(cases.some((c) => c.op === "find_slot"));
});

// A spawned process per call costs a Python start-up (seconds on a loaded machine): the
// first case of each operation also goes through spawn mode, every case through the bridge.
const spawnOnce = new Set();

for (const { op, name, input, expected } of cases) {
  const viaSpawnToo = !spawnOnce.has(op);
  spawnOnce.add(op);
  test(`${op} ${name}: the HTTP bytes through the long-lived bridge${viaSpawnToo ? " and a spawned one" : ""}`, async () => {
    const text = readFileSync(input, "utf8");
    const want = readFileSync(expected, "utf8");
    const viaBridge = await call(op, text);
    assert.equal(viaBridge.text, want);
    assert.deepEqual(viaBridge.value, JSON.parse(want));
    const viaObject = await call(op, JSON.parse(text));
    assert.equal(viaObject.text, want);
    if (viaSpawnToo) {
      const viaSpawn = await spawned.call(op, text);
      assert.equal(viaSpawn.text, want);
    }
  });
}
