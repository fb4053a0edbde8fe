// 100 calls at once: every answer is its own request's, and no process is left behind.
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { test } from "node:test";
import { createClient } from "../index.mjs";
import { EXAMPLES, allGone, example, fakeOptions, pidsIn } from "./helpers.mjs";

const names = readdirSync(EXAMPLES).filter((f) => f.endsWith(".json")).map((f) => f.slice(0, -5)).sort();

test("100 concurrent calls on one long-lived bridge", async () => {
  const client = createClient();
  // the answer of each example, one call at a time
  const alone = new Map();
  for (const name of names) {
    alone.set(`plan ${name}`, (await client.call("plan", example(name))).text);
    alone.set(`validate ${name}`, (await client.call("validate", example(name))).text);
  }
  const asked = Array.from({ length: 100 }, (_, i) => [i % 2 ? "validate" : "plan", names[i % names.length]]);
  const answers = await Promise.all(asked.map(([op, name]) => client.call(op, example(name))));
  answers.forEach((answer, i) => assert.equal(answer.text, alone.get(asked[i].join(" "))));
  await client.close();
});

test("100 concurrent spawned calls, at most maxProcesses at once, none left", async () => {
  const { pids, options } = fakeOptions("echo", { mode: "spawn", maxProcesses: 4 });
  const client = createClient(options);
  const ops = ["plan", "validate", "temporal", "find_slot"];
  const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => client.call(ops[i % 4], "{}")));
  answers.forEach((answer, i) => assert.equal(answer.value.op, ops[i % 4]));
  const started = pidsIn(pids);
  assert.equal(new Set(started).size, 100);
  assert.deepEqual(new Set(answers.map((a) => a.value.pid)), new Set(started));
  assert.ok(await allGone(started));
});
