// Shared test helpers: fake executables and process checks.
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const REPO = join(here, "..", "..", "..");
export const EXAMPLES = join(REPO, "src", "cerebri", "service", "examples");

export function tempDir() {
  return mkdtempSync(join(tmpdir(), "cerebri-node-"));
}

/** An executable shell script at DIR/NAME that runs the fake bridge (fake-cerebri.mjs). */
export function fakeBin(dir, name = "cerebri") {
  const path = join(dir, name);
  const script = `#!/bin/sh\nexec "${process.execPath}" "${join(here, "fake-cerebri.mjs")}" "$@"\n`;
  writeFileSync(path, script);
  chmodSync(path, 0o755);
  return path;
}

/** Options of a client over the fake in MODE, and the file its pids go to. */
export function fakeOptions(mode, extra = {}) {
  const dir = tempDir();
  const pids = join(dir, "pids");
  return {
    pids,
    options: {
      bin: fakeBin(dir),
      env: { ...process.env, FAKE_MODE: mode, FAKE_PIDS: pids },
      ...extra,
    },
  };
}

export function pidsIn(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number);
}

/** Whether PID is a live process (a zombie waiting for a reaper counts as gone). */
export function alive(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Wait until every pid is gone (a killed grandchild is reaped by init, not by us). */
export async function allGone(pids, patienceMs = 10_000) {
  for (let waited = 0; waited < patienceMs; waited += 20) {
    if (pids.every((pid) => !alive(pid))) return true;
    await sleep(20);
  }
  return pids.every((pid) => !alive(pid));
}

export function example(name) {
  return readFileSync(join(EXAMPLES, `${name}.json`), "utf8");
}

/**
 * Timeouts (ms) for a call to a fake that hangs, shortest first. The timeout must fire on a
 * fake that has already hung (its pid and its grandchild's written); on a loaded machine
 * starting the fake can take longer than a short timeout, so a test tries the next one
 * until the fake was hung when its timeout fired.
 */
export const HANG_TIMEOUTS_MS = [200, 1_000, 5_000, 30_000];
