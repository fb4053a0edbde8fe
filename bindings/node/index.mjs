// cerebri for Node: plan, validate, temporal, findSlot, optimize (a batch of meetings) and
// the event changes (rescheduleEvent, cancelEvent, updateEvent) through the installed
// `cerebri` command. No planning happens in JavaScript: every call is answered by a `cerebri bridge`
// process (protocol: src/cerebri/bridge.py; choices: docs/decisions/0032-node-bridge.md).
//
// Two process models:
//   "bridge" (default): one long-lived `cerebri bridge` per client, requests sent one at a
//            time, so Python starts once;
//   "spawn":  a fresh `cerebri bridge` for every call, at most `maxProcesses` at once.

import { spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const MAX_INPUT_BYTES = 256 * 1024;
export const MAX_FIND_SLOT_BYTES = 4 * 1024 * 1024;
// the optimiser's own admission limit, fixed (as POST /v1/optimize and the bridge)
export const MAX_OPTIMIZE_BYTES = 4 * 1024 * 1024;
export const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 60_000;
const MAX_HEADER_BYTES = 64 * 1024;
const STDERR_KEPT = 4096;
const MAX_TIMER_MS = 2 ** 31 - 1; // Node's setTimeout clamps longer delays to 1 ms
const EXIT_GRACE_MS = 500; // after the child exits, how long its stdout may stay open
const OPERATIONS = new Set([
  "plan",
  "validate",
  "temporal",
  "find_slot",
  "reschedule_event",
  "cancel_event",
  "update_event",
  "optimize",
]);
// operations whose bodies carry calendars: limited to maxFindSlotBytes, as their HTTP routes
const CALENDAR_OPERATIONS = new Set(["find_slot", "reschedule_event", "cancel_event", "update_event"]);

/** A failure with a stable `code` (the CLI's own, or `bridge.*`) and a JSON `path`. */
export class CerebriError extends Error {
  constructor(code, message, path = null) {
    super(message);
    this.name = "CerebriError";
    this.code = code;
    this.path = path;
  }
}

const isWindows = process.platform === "win32";

function executable(file) {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function venvIn(start) {
  const names = isWindows ? [join(".venv", "Scripts", "cerebri.exe")] : [join(".venv", "bin", "cerebri")];
  let dir = resolve(start);
  for (;;) {
    for (const name of names) {
      const candidate = join(dir, name);
      if (executable(candidate)) return candidate;
    }
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/**
 * The `cerebri` executable: `options.bin`, else `CEREBRI_BIN`, else the `.venv` of the
 * nearest project above the working directory, then above this package, else PATH.
 * Throws CerebriError `bridge.not_found`.
 */
export function findCerebri(options = {}) {
  const env = options.env ?? process.env;
  const chosen = options.bin ?? env.CEREBRI_BIN;
  if (chosen) {
    const path = resolve(chosen);
    if (executable(path)) return path;
    throw new CerebriError("bridge.not_found", `no executable cerebri at ${path}`);
  }
  const here = dirname(fileURLToPath(import.meta.url));
  const found = venvIn(options.cwd ?? process.cwd()) ?? venvIn(here);
  if (found) return found;
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, isWindows ? "cerebri.exe" : "cerebri");
    if (executable(candidate)) return candidate;
  }
  throw new CerebriError(
    "bridge.not_found",
    "cerebri not found: set CEREBRI_BIN, pass options.bin, or install it in a .venv or on PATH",
  );
}

function requestBytes(request, maxInputBytes) {
  let text;
  if (typeof request === "string") text = request;
  else if (request instanceof Uint8Array) return checkSize(Buffer.from(request), maxInputBytes);
  else if (request !== null && typeof request === "object") {
    try {
      text = JSON.stringify(request);
    } catch (error) {
      // a BigInt, a cycle, or a throwing toJSON: not a JSON document
      throw new CerebriError("bridge.invalid_argument", `the request is not JSON: ${error.message}`);
    }
  } else {
    throw new CerebriError(
      "bridge.invalid_argument",
      "the request must be an object, JSON text or UTF-8 bytes",
    );
  }
  return checkSize(Buffer.from(text, "utf8"), maxInputBytes);
}

function checkSize(bytes, maxInputBytes) {
  if (bytes.length > maxInputBytes) {
    throw new CerebriError(
      "bridge.input_too_large",
      `the request is ${bytes.length} bytes, more than the limit of ${maxInputBytes}`,
    );
  }
  return bytes;
}

function positive(value, name, max = Number.MAX_SAFE_INTEGER) {
  if (!Number.isSafeInteger(value) || value <= 0 || value > max) {
    throw new CerebriError("bridge.invalid_argument", `${name} must be an integer from 1 to ${max}`);
  }
  return value;
}

// The CLI's one-line error on stderr: `error <code> at <path>: <message>` (cli/_app.py fail).
const CLI_ERROR = /^error (\S+?)(?: at (.*?))?: (.*)$/m;

function exitError(code, signal, stderr) {
  const match = CLI_ERROR.exec(stderr);
  if (match && code !== 0 && code !== null) {
    return new CerebriError(match[1], match[3], match[2] === undefined ? null : match[2]);
  }
  const how = signal ? `was killed by ${signal}` : `exited with status ${code}`;
  const tail = stderr.trim() ? `: ${stderr.trim().split("\n").slice(-3).join(" | ")}` : "";
  return new CerebriError("bridge.crashed", `cerebri bridge ${how} before answering${tail}`);
}

/**
 * Kill a child and its whole process group (it leads its own group: `detached`). The group
 * is killed even when the child has exited: its own children may outlive it.
 */
function killTree(child) {
  if (child.pid === undefined) return;
  if (!isWindows) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      /* the group is empty */
    }
  }
  if (child.exitCode === null && child.signalCode === null) {
    try {
      child.kill("SIGKILL");
    } catch {
      /* already gone */
    }
  }
}

const live = new Set();
process.on("exit", () => {
  for (const child of live) killTree(child);
});

/**
 * One `cerebri bridge` process and the reader of its answers. `onAnswer(answer)` gets
 * `{ok, id, text}` or `{ok: false, id, error}`; `onFailure(error)` is called once when the
 * process dies, misbehaves or is stopped, after the process has exited.
 */
class Worker {
  constructor(bin, settings, onAnswer, onFailure) {
    const maxOutputBytes = settings.maxOutputBytes;
    this.maxOutputBytes = maxOutputBytes;
    this.onAnswer = onAnswer;
    this.onFailure = onFailure;
    this.chunks = [];
    this.size = 0;
    this.expect = null; // the header whose body is being read
    this.stderr = "";
    this.failure = null;
    this.closed = false;
    this.grace = null;
    this.done = new Promise((resolveDone) => {
      this.resolveDone = resolveDone;
    });
    const args = [
      "bridge",
      "--max-input-bytes",
      String(settings.maxInputBytes),
      "--max-find-slot-bytes",
      String(settings.maxFindSlotBytes),
      "--max-output-bytes",
      String(maxOutputBytes),
    ];
    this.child = spawn(bin, args, {
      stdio: ["pipe", "pipe", "pipe"],
      env: settings.env ?? process.env,
      cwd: settings.cwd,
      detached: !isWindows,
      windowsHide: true,
    });
    live.add(this.child);
    this.child.on("error", (error) => {
      const code = error.code === "ENOENT" || error.code === "EACCES" ? "bridge.not_found" : "bridge.crashed";
      const failure = new CerebriError(code, `cannot start ${bin}: ${error.message}`);
      if (this.child.pid === undefined) this.finish(failure); // never started: no "close"
      else this.fail(failure);
    });
    this.child.stdin.on("error", () => {}); // EPIPE: the exit tells what happened
    this.child.stdout.on("data", (chunk) => this.read(chunk));
    this.child.stderr.on("data", (chunk) => {
      this.stderr = (this.stderr + chunk.toString("utf8")).slice(-STDERR_KEPT);
    });
    // Settle on "close" (stdout and stderr drained), or a short grace after "exit": a
    // descendant that left the group could hold stdout open for ever.
    this.child.on("exit", () => {
      killTree(this.child);
      this.grace = setTimeout(() => {
        this.child.stdout.destroy();
        this.child.stderr.destroy();
        this.finish(exitError(this.child.exitCode, this.child.signalCode, this.stderr));
      }, EXIT_GRACE_MS);
    });
    this.child.on("close", (code, signal) => this.finish(exitError(code, signal, this.stderr)));
  }

  finish(error) {
    if (this.closed) return;
    clearTimeout(this.grace);
    live.delete(this.child);
    this.closed = true;
    this.onFailure(this.failure ?? error);
    this.resolveDone();
  }

  send(id, op, body) {
    this.child.stdin.write(JSON.stringify({ id, op, length: body.length }) + "\n");
    this.child.stdin.write(body);
  }

  /** Stop the process: `error` is what the caller of the current request gets. */
  fail(error) {
    if (this.failure === null) this.failure = error;
    killTree(this.child);
  }

  end() {
    this.child.stdin.end();
  }

  setRef(on) {
    for (const handle of [this.child, this.child.stdin, this.child.stdout, this.child.stderr]) {
      if (on) handle.ref?.();
      else handle.unref?.();
    }
  }

  read(chunk) {
    if (this.failure !== null) return;
    let data = chunk;
    while (data.length > 0 && this.failure === null) {
      if (this.expect === null) {
        const newline = data.indexOf(10);
        const part = newline < 0 ? data : data.subarray(0, newline);
        this.chunks.push(part);
        this.size += part.length;
        if (this.size > MAX_HEADER_BYTES) {
          return this.fail(new CerebriError("bridge.invalid_output", "cerebri bridge wrote an overlong header line"));
        }
        if (newline < 0) return;
        data = data.subarray(newline + 1);
        const line = Buffer.concat(this.chunks).toString("utf8");
        this.chunks = [];
        this.size = 0;
        this.header(line);
      } else {
        const wanted = this.expect.length + 1 - this.size; // the body and its newline
        const part = data.subarray(0, wanted);
        this.chunks.push(part);
        this.size += part.length;
        data = data.subarray(part.length);
        if (this.size === this.expect.length + 1) this.body();
      }
    }
  }

  header(line) {
    let header;
    try {
      header = JSON.parse(line);
    } catch {
      header = null;
    }
    const valid =
      header !== null &&
      typeof header === "object" &&
      "id" in header &&
      (header.ok === true
        ? Number.isSafeInteger(header.length) && header.length >= 0
        : header.ok === false && header.error !== null && typeof header.error === "object" &&
          typeof header.error.code === "string");
    if (!valid) {
      return this.fail(new CerebriError("bridge.invalid_output", `cerebri bridge wrote an invalid header: ${line.slice(0, 200)}`));
    }
    if (header.ok === false) {
      const { code, message, path } = header.error;
      return this.onAnswer({ ok: false, id: header.id, error: new CerebriError(code, String(message ?? code), path ?? null) });
    }
    if (header.length > this.maxOutputBytes) {
      return this.fail(new CerebriError("bridge.output_too_large", `the answer is ${header.length} bytes, more than the limit of ${this.maxOutputBytes}`));
    }
    this.expect = header;
  }

  body() {
    const whole = Buffer.concat(this.chunks);
    const header = this.expect;
    this.chunks = [];
    this.size = 0;
    this.expect = null;
    if (whole[whole.length - 1] !== 10) {
      return this.fail(new CerebriError("bridge.invalid_output", "an answer body does not end with a newline"));
    }
    const text = whole.subarray(0, whole.length - 1).toString("utf8");
    let value;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return this.fail(new CerebriError("bridge.invalid_output", `cerebri bridge wrote invalid JSON: ${error.message}`));
    }
    this.onAnswer({ ok: true, id: header.id, text, value });
  }
}

/**
 * A client with its own options. `mode: "bridge"` (default) keeps one `cerebri bridge`
 * process for every call of this client; `"spawn"` starts one per call.
 */
export function createClient(options = {}) {
  const mode = options.mode ?? "bridge";
  if (mode !== "bridge" && mode !== "spawn") {
    throw new CerebriError("bridge.invalid_argument", 'mode must be "bridge" or "spawn"');
  }
  const settings = {
    bin: options.bin,
    cwd: options.cwd,
    env: options.env,
    timeoutMs: positive(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, "timeoutMs", MAX_TIMER_MS),
    maxInputBytes: positive(options.maxInputBytes ?? MAX_INPUT_BYTES, "maxInputBytes"),
    maxFindSlotBytes: positive(options.maxFindSlotBytes ?? MAX_FIND_SLOT_BYTES, "maxFindSlotBytes"),
    maxOutputBytes: positive(options.maxOutputBytes ?? MAX_OUTPUT_BYTES, "maxOutputBytes"),
    maxProcesses: positive(options.maxProcesses ?? availableParallelism(), "maxProcesses"),
  };
  return mode === "bridge" ? new BridgeClient(settings) : new SpawnClient(settings);
}

class BaseClient {
  constructor(settings) {
    this.settings = settings;
    this.queue = [];
    this.nextId = 1;
    this.closed = false;
  }

  /** `{text, value}`: the answer's exact compact JSON text and its parsed value. */
  call(op, request, callOptions = {}) {
    return new Promise((resolvePromise, reject) => {
      if (!OPERATIONS.has(op)) {
        throw new CerebriError("bridge.invalid_argument", `unknown operation ${op}`);
      }
      if (this.closed) throw new CerebriError("bridge.closed", "the client is closed");
      // the process was started with the client's limits: a call may lower them, not raise
      const limit = op === "optimize"
        ? MAX_OPTIMIZE_BYTES
        : CALENDAR_OPERATIONS.has(op) ? this.settings.maxFindSlotBytes : this.settings.maxInputBytes;
      const maxInputBytes = positive(callOptions.maxInputBytes ?? limit, "maxInputBytes", limit);
      const body = requestBytes(request, maxInputBytes);
      const timeoutMs = positive(callOptions.timeoutMs ?? this.settings.timeoutMs, "timeoutMs", MAX_TIMER_MS);
      const job = { id: this.nextId++, op, body, resolve: resolvePromise, reject, done: false };
      job.finished = new Promise((markFinished) => {
        job.markFinished = markFinished;
      });
      job.timer = setTimeout(() => this.expire(job), timeoutMs);
      this.queue.push(job);
      this.pump();
    });
  }

  settle(job, error, answer) {
    if (job.done) return;
    job.done = true;
    clearTimeout(job.timer);
    if (error) job.reject(error);
    else job.resolve({ text: answer.text, value: answer.value });
    job.markFinished();
  }

  /** Settled when every call not yet settled is. */
  pending() {
    return Promise.all(this.unsettled().map((job) => job.finished));
  }

  plan(request, callOptions) {
    return this.call("plan", request, callOptions).then((a) => a.value);
  }
  validate(request, callOptions) {
    return this.call("validate", request, callOptions).then((a) => a.value);
  }
  temporal(request, callOptions) {
    return this.call("temporal", request, callOptions).then((a) => a.value);
  }
  findSlot(request, callOptions) {
    return this.call("find_slot", request, callOptions).then((a) => a.value);
  }
  rescheduleEvent(request, callOptions) {
    return this.call("reschedule_event", request, callOptions).then((a) => a.value);
  }
  cancelEvent(request, callOptions) {
    return this.call("cancel_event", request, callOptions).then((a) => a.value);
  }
  updateEvent(request, callOptions) {
    return this.call("update_event", request, callOptions).then((a) => a.value);
  }
  optimize(request, callOptions) {
    return this.call("optimize", request, callOptions).then((a) => a.value);
  }
}

class BridgeClient extends BaseClient {
  constructor(settings) {
    super(settings);
    this.worker = null;
    this.current = null;
    this.stopping = new Set(); // workers stopped after a timeout, until they are gone
  }

  unsettled() {
    return [this.current, ...this.queue].filter((job) => job !== null && !job.done);
  }

  pump() {
    if (this.current !== null) return;
    while (this.queue.length > 0 && this.queue[0].done) this.queue.shift();
    if (this.queue.length === 0) {
      this.worker?.setRef(false); // idle: the process does not keep Node alive
      return;
    }
    const job = this.queue.shift();
    if (this.worker === null) {
      let bin;
      try {
        bin = findCerebri(this.settings);
      } catch (error) {
        this.settle(job, error);
        return this.pump();
      }
      const worker = new Worker(
        bin,
        this.settings,
        (answer) => this.answered(worker, answer),
        (error) => this.died(worker, error),
      );
      this.worker = worker;
    }
    this.worker.setRef(true);
    this.current = job;
    this.worker.send(job.id, job.op, job.body);
  }

  answered(worker, answer) {
    if (worker !== this.worker) return; // a stopped process's late answer
    const job = this.current;
    if (job === null || answer.id !== job.id) {
      return worker.fail(new CerebriError("bridge.invalid_output", `an answer to request ${answer.id}, which was not asked`));
    }
    this.current = null;
    this.settle(job, answer.ok ? null : answer.error, answer);
    this.pump();
  }

  died(worker, error) {
    this.stopping.delete(worker);
    if (this.worker !== worker) return;
    this.worker = null;
    const job = this.current;
    this.current = null;
    if (job !== null) this.settle(job, error);
    if (!this.closed) return this.pump();
    // closing: the calls not yet sent fail now rather than start another process
    const closed = new CerebriError("bridge.closed", "the client was closed and its bridge ended before this call was sent");
    for (const queued of this.queue) this.settle(queued, closed);
    this.queue = [];
  }

  expire(job) {
    const error = new CerebriError("bridge.timeout", "cerebri did not answer within the timeout");
    this.settle(job, error);
    if (this.current === job && this.worker !== null) {
      // stop the process (the rest of the queue goes to a fresh one); the call is settled now
      const worker = this.worker;
      this.worker = null;
      this.current = null;
      this.stopping.add(worker);
      worker.fail(error);
      this.pump();
    }
  }

  /**
   * End the bridge process once the calls in flight are answered; later calls fail. If the
   * process dies meanwhile, the calls not yet sent fail with `bridge.closed`. Resolves when
   * every process of this client is gone.
   */
  async close() {
    this.closed = true;
    await this.pending();
    const worker = this.worker;
    if (worker !== null && !worker.closed) {
      worker.setRef(true);
      worker.end();
      await worker.done;
    }
    await Promise.all([...this.stopping].map((stopped) => stopped.done));
  }
}

class SpawnClient extends BaseClient {
  constructor(settings) {
    super(settings);
    this.running = new Map();
  }

  unsettled() {
    return [...this.running.keys(), ...this.queue].filter((job) => !job.done);
  }

  pump() {
    while (this.running.size < this.settings.maxProcesses && this.queue.length > 0) {
      const job = this.queue.shift();
      if (job.done) continue;
      let bin;
      try {
        bin = findCerebri(this.settings);
      } catch (error) {
        this.settle(job, error);
        continue;
      }
      let answered = null;
      const worker = new Worker(
        bin,
        this.settings,
        (answer) => {
          if (answer.id !== job.id || answered !== null) {
            return worker.fail(new CerebriError("bridge.invalid_output", "an answer that was not asked"));
          }
          answered = answer;
        },
        (error) => {
          this.running.delete(job);
          if (answered !== null && worker.failure === null) {
            this.settle(job, answered.ok ? null : answered.error, answered);
          } else {
            this.settle(job, error);
          }
          this.pump();
        },
      );
      this.running.set(job, worker);
      worker.send(job.id, job.op, job.body);
      worker.end();
    }
  }

  expire(job) {
    const error = new CerebriError("bridge.timeout", "cerebri did not answer within the timeout");
    this.settle(job, error); // now; the process still counts against maxProcesses until gone
    this.running.get(job)?.fail(error);
  }

  /** Wait for the calls in flight and their processes; later calls fail. */
  async close() {
    this.closed = true;
    await this.pending();
    await Promise.all([...this.running.values()].map((worker) => worker.done));
  }
}

let shared = null;
function defaultClient() {
  shared ??= createClient();
  return shared;
}

function through(op, request, options) {
  if (options === undefined) return defaultClient().call(op, request);
  const { timeoutMs, maxInputBytes, ...clientOptions } = options;
  const limit = op === "optimize"
    ? MAX_OPTIMIZE_BYTES
    : CALENDAR_OPERATIONS.has(op) ? MAX_FIND_SLOT_BYTES : MAX_INPUT_BYTES;
  if (Object.keys(clientOptions).length === 0 && !(maxInputBytes > limit)) {
    return defaultClient().call(op, request, { timeoutMs, maxInputBytes });
  }
  // other options (bin, mode, maxOutputBytes...) or a raised input limit get a client of
  // their own for this call, whose process is started with that limit
  const own = { ...options };
  if (CALENDAR_OPERATIONS.has(op) && maxInputBytes > (options.maxFindSlotBytes ?? limit)) {
    own.maxFindSlotBytes = maxInputBytes;
  }
  let client;
  try {
    client = createClient(own);
  } catch (error) {
    return Promise.reject(error);
  }
  return client.call(op, request, { maxInputBytes }).finally(() => client.close());
}

/** The PlanningResult of a CPIR request (`cerebri plan`, `POST /v1/plan`). */
export function plan(request, options) {
  return through("plan", request, options).then((a) => a.value);
}

/** The ValidationReport of a CPIR request (`cerebri validate`, `POST /v1/validate`). */
export function validate(request, options) {
  return through("validate", request, options).then((a) => a.value);
}

/** The TemporalResult of a temporal request (`cerebri temporal`, `POST /v1/temporal`). */
export function temporal(request, options) {
  return through("temporal", request, options).then((a) => a.value);
}

/** The FindSlotAnswer of a find-slot body (`POST /v1/find-slot`). */
export function findSlot(request, options) {
  return through("find_slot", request, options).then((a) => a.value);
}

/** The EventChangeAnswer of a reschedule body (`POST /v1/events/reschedule`). */
export function rescheduleEvent(request, options) {
  return through("reschedule_event", request, options).then((a) => a.value);
}

/** The EventChangeAnswer of a cancel body (`POST /v1/events/cancel`). */
export function cancelEvent(request, options) {
  return through("cancel_event", request, options).then((a) => a.value);
}

/** The EventChangeAnswer of an update body (`POST /v1/events/update`). */
export function updateEvent(request, options) {
  return through("update_event", request, options).then((a) => a.value);
}

/**
 * The PlanningResult of a CPIR `OPTIMIZE` request, a batch of meetings (`cerebri optimize
 * --json`, `POST /v1/optimize`): its `batch` member says proven optimal, best found (with
 * the bound), infeasible (with the conflicting rules) or unknown. Another operation is
 * refused with `input.invalid_argument` at `/operation`. Requests up to 4 MiB.
 */
export function optimize(request, options) {
  return through("optimize", request, options).then((a) => a.value);
}

/** `{text, value}` of any operation: the exact answer text (the HTTP body) and its value. */
export function call(op, request, options) {
  return through(op, request, options);
}

/** Close the shared client behind the module functions (a later call starts a new one). */
export async function close() {
  const client = shared;
  shared = null;
  if (client !== null) await client.close();
}
