// Every limit and failure gives a CerebriError with a stable code and leaves no process.
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, test } from "node:test";
import {
  CerebriError,
  MAX_INPUT_BYTES,
  createClient,
  findCerebri,
  plan,
  validate,
} from "../index.mjs";
import { HANG_TIMEOUTS_MS, REPO, allGone, example, fakeBin, fakeOptions, pidsIn, tempDir } from "./helpers.mjs";

const clients = [];
function client(options) {
  const made = createClient(options);
  clients.push(made);
  return made;
}
after(() => Promise.all(clients.map((c) => c.close())));

async function refused(promise, code) {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof CerebriError, `not a CerebriError: ${error}`);
    assert.equal(error.code, code, error.message);
    return true;
  });
}

/** A request of exactly SIZE bytes: the example, padded with spaces after its last brace. */
function padded(name, size) {
  const text = example(name).trimEnd();
  return text + " ".repeat(size - Buffer.byteLength(text));
}

for (const mode of ["bridge", "spawn"]) {
  test(`${mode}: input over ${MAX_INPUT_BYTES} bytes is refused without starting cerebri`, async () => {
    const { pids, options } = fakeOptions("echo", { mode });
    const big = padded("design-review", MAX_INPUT_BYTES + 1);
    await refused(client(options).call("plan", big), "bridge.input_too_large");
    // a multi-byte character counts by its UTF-8 bytes, not UTF-16 units
    const wide = "é".repeat(MAX_INPUT_BYTES / 2) + " ";
    await refused(client(options).call("plan", wide), "bridge.input_too_large");
    assert.deepEqual(pidsIn(pids), []);
  });

  test(`${mode}: input of exactly ${MAX_INPUT_BYTES} bytes is answered`, async () => {
    const exact = padded("design-review", MAX_INPUT_BYTES);
    assert.equal(Buffer.byteLength(exact), MAX_INPUT_BYTES);
    const answer = await client({ mode }).call("plan", exact);
    const plain = await client({ mode }).call("plan", example("design-review"));
    assert.equal(answer.text, plain.text);
  });

  test(`${mode}: an answer over maxOutputBytes is refused by cerebri itself`, async () => {
    const full = await client({ mode }).call("plan", example("design-review"));
    const limit = Buffer.byteLength(full.text) - 1;
    const small = client({ mode, maxOutputBytes: limit });
    await refused(small.call("plan", example("design-review")), "bridge.output_too_large");
    // the bridge stays usable: a shorter answer still arrives
    const report = await small.call("validate", example("design-review"));
    assert.equal(report.value.state, "Valid");
  });

  test(`${mode}: a child streaming past the output limit is stopped, with its group`, async () => {
    const { pids, options } = fakeOptions("flood", { mode });
    await refused(client(options).plan(example("design-review")), "bridge.output_too_large");
    const started = pidsIn(pids);
    assert.equal(started.length, 2);
    assert.ok(await allGone(started), `still running: ${started}`);
  });

  test(`${mode}: a hang past the caller's timeout is stopped, with its group`, async () => {
    for (const timeoutMs of HANG_TIMEOUTS_MS.filter((ms) => ms >= 3000)) {
      const { pids, options } = fakeOptions("hang", { mode, timeoutMs: 60_000 });
      const hung = client(options);
      await refused(hung.plan(example("design-review"), { timeoutMs }), "bridge.timeout");
      const started = pidsIn(pids);
      assert.ok(await allGone(started), `still running: ${started}`); // a shorter try too
      if (started.length === 2) return; // the child and its grandchild, both stopped
    }
    assert.fail(`the fake had not hung within ${HANG_TIMEOUTS_MS.at(-1)} ms`);
  });

  const failures = [
    ["crash", "bridge.crashed"],
    ["exit", "bridge.crashed"],
    ["cli-error", "cpir.unknown_field"],
    ["invalid", "bridge.invalid_output"],
    ["invalid-body", "bridge.invalid_output"],
    ["wrong-id", "bridge.invalid_output"],
    ["babble", "bridge.invalid_output"],
  ];
  for (const [fake, code] of failures) {
    test(`${mode}: a child that does "${fake}" gives ${code} and is gone`, async () => {
      const { pids, options } = fakeOptions(fake, { mode });
      await refused(client(options).plan(example("design-review")), code);
      const started = pidsIn(pids);
      assert.equal(started.length, 1);
      assert.ok(await allGone(started), `still running: ${started}`);
    });
  }
}

test("the CLI's error line keeps its code and JSON path", async () => {
  const { options } = fakeOptions("cli-error", { mode: "spawn" });
  await assert.rejects(client(options).plan("{}"), (error) => {
    assert.equal(error.code, "cpir.unknown_field");
    assert.equal(error.path, "/scope/extra");
    assert.equal(error.message, "unknown field");
    return true;
  });
});

test("after a crash the long-lived bridge restarts for the next call", async () => {
  const { pids, options } = fakeOptions("crash");
  const crashing = client(options);
  await refused(crashing.plan("{}"), "bridge.crashed");
  await refused(crashing.plan("{}"), "bridge.crashed");
  assert.equal(new Set(pidsIn(pids)).size, 2);
});

test("cerebri's own refusals carry the CLI's code and path", async () => {
  await refused(validate("{nope"), "json.syntax");
  const document = JSON.parse(example("design-review"));
  document.scope.unexpected = 1;
  await assert.rejects(plan(document), (error) => {
    assert.equal(error.code, "cpir.unknown_field");
    assert.equal(error.path, "/scope/unexpected");
    return true;
  });
  await refused(plan(42), "bridge.invalid_argument");
  await refused(plan(null), "bridge.invalid_argument");
});

test("a missing executable is bridge.not_found, from CEREBRI_BIN or the option", async () => {
  const missing = join(tempDir(), "no-such-cerebri");
  await refused(plan("{}", { bin: missing }), "bridge.not_found");
  const env = { ...process.env, CEREBRI_BIN: missing };
  assert.throws(() => findCerebri({ env }), (error) => error.code === "bridge.not_found");
});

test("discovery: option, CEREBRI_BIN, the .venv above the working directory, then PATH", async () => {
  const project = tempDir();
  mkdirSync(join(project, ".venv", "bin"), { recursive: true });
  const venvBin = fakeBin(join(project, ".venv", "bin"));
  const deep = join(project, "app", "src");
  mkdirSync(deep, { recursive: true });
  const onPath = tempDir();
  const pathBin = fakeBin(onPath);
  const option = fakeBin(tempDir());
  const fromEnv = fakeBin(tempDir());
  const outside = tempDir();
  assert.equal(findCerebri({ bin: option, env: { CEREBRI_BIN: fromEnv }, cwd: deep }), option);
  assert.equal(findCerebri({ env: { CEREBRI_BIN: fromEnv, PATH: onPath }, cwd: deep }), fromEnv);
  assert.equal(findCerebri({ env: { PATH: onPath }, cwd: deep }), venvBin);
  // no .venv above the working directory: the one above this package (the project's own)
  assert.equal(findCerebri({ env: { PATH: onPath }, cwd: outside }), join(REPO, ".venv", "bin", "cerebri"));
  // a copy of the package with no .venv above it either falls back to PATH
  const copy = tempDir();
  copyFileSync(join(REPO, "bindings", "node", "index.mjs"), join(copy, "index.mjs"));
  return import(pathToFileURL(join(copy, "index.mjs")).href).then((moved) => {
    assert.equal(moved.findCerebri({ env: { PATH: onPath }, cwd: outside }), pathBin);
  });
});

test("a bad option is bridge.invalid_argument", () => {
  assert.throws(() => createClient({ mode: "threads" }), (e) => e.code === "bridge.invalid_argument");
  assert.throws(() => createClient({ timeoutMs: 0 }), (e) => e.code === "bridge.invalid_argument");
});
