// optimize (a CPIR OPTIMIZE batch) through Node: the bytes of `cerebri optimize --json`,
// compacted, which are also the body of POST /v1/optimize. The pytest wrapper
// (tests/bindings/test_node.py) computes them with the CLI, checks them against HTTP and
// names them in the manifest CEREBRI_NODE_OPTIMIZE: [{name, input, expected}].
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, test } from "node:test";
import { CerebriError, MAX_OPTIMIZE_BYTES, call, close, createClient, optimize, plan } from "../index.mjs";
import { example } from "./helpers.mjs";

const manifestPath = process.env.CEREBRI_NODE_OPTIMIZE;
if (!manifestPath) {
  throw new Error("CEREBRI_NODE_OPTIMIZE is not set: run these tests through tests/bindings/test_node.py");
}
const cases = JSON.parse(readFileSync(manifestPath, "utf8"));
const client = createClient();
after(() => Promise.all([close(), client.close()]));

test("the manifest has an optimal batch with a move and an infeasible one", () => {
  const statuses = cases.map((c) => JSON.parse(readFileSync(c.expected, "utf8")).batch.status);
  assert.deepEqual(statuses.sort(), ["INFEASIBLE", "OPTIMAL"]);
});

for (const { name, input, expected } of cases) {
  test(`optimize ${name}: the CLI's bytes by call, module function, client method and plan`, async () => {
    const text = readFileSync(input, "utf8");
    const want = readFileSync(expected, "utf8");
    assert.equal((await call("optimize", text)).text, want);
    assert.deepEqual(await optimize(JSON.parse(text)), JSON.parse(want));
    assert.deepEqual(await client.optimize(Buffer.from(text, "utf8")), JSON.parse(want));
    // plan routes an OPTIMIZE to the optimiser too, as POST /v1/plan does
    assert.equal((await call("plan", text)).text, want);
  });
}

test("the moved event of the optimal batch is marked moved, not new", async () => {
  const optimal = cases.find((c) => JSON.parse(readFileSync(c.expected, "utf8")).batch.status === "OPTIMAL");
  const request = JSON.parse(readFileSync(optimal.input, "utf8"));
  const result = await optimize(request);
  const existing = new Set(request.context.objects.filter((o) => o.revision !== null).map((o) => o.id));
  const moved = result.batch.assignments.filter((a) => a.moved);
  assert.ok(moved.length >= 1);
  for (const a of moved) {
    assert.equal(a.new, false);
    assert.ok(existing.has(a.object_id), a.object_id);
  }
  for (const a of result.batch.assignments.filter((x) => x.new)) {
    assert.ok(request.target_ids.includes(a.object_id), a.object_id);
  }
});

test("another operation is refused at /operation", async () => {
  await assert.rejects(optimize(example("design-review")), (error) => {
    assert.ok(error instanceof CerebriError);
    assert.equal(error.code, "input.invalid_argument");
    assert.equal(error.path, "/operation");
    return true;
  });
});

test("an optimize request may be up to 4 MiB; plan keeps its 256 KiB", async () => {
  const [first] = cases;
  // the same request padded with insignificant whitespace past 256 KiB
  const padded = readFileSync(first.input, "utf8") + " ".repeat(300 * 1024);
  const want = readFileSync(first.expected, "utf8");
  assert.equal((await call("optimize", padded)).text, want);
  await assert.rejects(call("plan", padded), (error) => {
    assert.equal(error.code, "bridge.input_too_large");
    return true;
  });
  const tooLarge = readFileSync(first.input, "utf8") + " ".repeat(MAX_OPTIMIZE_BYTES);
  await assert.rejects(optimize(tooLarge), (error) => {
    assert.equal(error.code, "bridge.input_too_large");
    return true;
  });
});
