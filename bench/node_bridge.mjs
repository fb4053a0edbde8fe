// The Node bridge's two process models, as a ratio (decision 0032):
//   node bench/node_bridge.mjs [calls]        (default 20 calls of each example)
// "spawn" starts `cerebri bridge` for every call; "bridge" keeps one process for all calls.
// Both plan the same shipped examples one call at a time, after one warm-up call each; the
// report is milliseconds per call (the median of 3 repeats) and spawn / bridge.
import { readFileSync, readdirSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient, findCerebri } from "../bindings/node/index.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const folder = join(repo, "src", "cerebri", "service", "examples");
const examples = readdirSync(folder).filter((f) => f.endsWith(".json")).sort()
  .map((f) => readFileSync(join(folder, f), "utf8"))
  // the single-meeting examples only, as measured in decision 0032 (an OPTIMIZE batch loads
  // the solver: decision 0080 measures it apart)
  .filter((text) => JSON.parse(text).operation !== "OPTIMIZE");
const calls = Number(process.argv[2] ?? 20);

async function perCall(mode) {
  const client = createClient({ mode, maxProcesses: 1 });
  await client.plan(examples[0]); // warm-up: the first bridge start, disk caches
  const repeats = [];
  for (let r = 0; r < 3; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) await client.plan(examples[i % examples.length]);
    repeats.push(Number(process.hrtime.bigint() - start) / 1e6 / calls);
  }
  await client.close();
  return repeats.sort((a, b) => a - b)[1];
}

console.log(`node ${process.version}, ${cpus().length} cores, load ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
console.log(`cerebri: ${findCerebri()}; ${calls} sequential plan calls per repeat`);
const bridge = await perCall("bridge");
const spawn = await perCall("spawn");
console.log(`bridge (one long-lived process): ${bridge.toFixed(1)} ms per call`);
console.log(`spawn (a process per call):      ${spawn.toFixed(1)} ms per call`);
console.log(`spawn / bridge: ${(spawn / bridge).toFixed(1)}x`);
