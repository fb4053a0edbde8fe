// Type declarations of the cerebri Node package (hand-written; index.mjs is the source).
// The answers are cerebri's wire documents; their JSON Schemas are in the HTTP service's
// OpenAPI document (`cerebri serve`, GET /openapi.json) and `cerebri schema`.

/** A JSON value as cerebri writes it. */
export type JSONValue = null | boolean | number | string | JSONValue[] | { [key: string]: JSONValue };
/** A JSON object (a request or an answer). */
export type JSONObject = { [key: string]: JSONValue };

/** A request: a JSON object, JSON text, or the UTF-8 bytes of JSON text. */
export type Request = JSONObject | string | Uint8Array;

/** The operations, each the body of one HTTP route (/v1/plan, /v1/events/reschedule, ...). */
export type Operation =
  | "plan"
  | "validate"
  | "temporal"
  | "find_slot"
  | "reschedule_event"
  | "cancel_event"
  | "update_event"
  | "optimize";

/**
 * Stable codes: the CLI's own (`json.syntax`, `cpir.unknown_field`, `input.too_large`,
 * `input.invalid_option`, `ics.*` ...) when cerebri refuses a request, or one of these.
 */
export type BridgeCode =
  | "bridge.input_too_large"
  | "bridge.output_too_large"
  | "bridge.timeout"
  | "bridge.crashed"
  | "bridge.invalid_output"
  | "bridge.not_found"
  | "bridge.invalid_argument"
  | "bridge.closed"
  | "bridge.unknown_operation"
  | "bridge.internal_error";

export class CerebriError extends Error {
  readonly name: "CerebriError";
  /** Stable machine-readable code (BridgeCode or the CLI's code). */
  readonly code: BridgeCode | (string & {});
  /** RFC 6901 JSON pointer into the request, or null. */
  readonly path: string | null;
  constructor(code: string, message: string, path?: string | null);
}

/** Default largest plan/validate/temporal request, in UTF-8 bytes of its JSON text: 256 KiB. */
export const MAX_INPUT_BYTES: number;
/** Default largest findSlot request (it carries calendars), as POST /v1/find-slot: 4 MiB. */
export const MAX_FIND_SLOT_BYTES: number;
/** Largest optimize request, as POST /v1/optimize: 4 MiB, the optimiser's admission limit (fixed). */
export const MAX_OPTIMIZE_BYTES: number;
/** Largest answer, in bytes: 16 MiB. */
export const MAX_OUTPUT_BYTES: number;
/** Default per-call timeout, in milliseconds: 60 000. */
export const DEFAULT_TIMEOUT_MS: number;

export interface CallOptions {
  /**
   * Milliseconds from the call to its answer, queueing included (default 60 000); an
   * integer from 1 to 2**31-1, else `bridge.invalid_argument`.
   */
  timeoutMs?: number;
  /**
   * Largest request in bytes. On a client: the limit its `cerebri bridge` processes are
   * started with (default MAX_INPUT_BYTES); it may be raised. On a client's call: it may
   * only lower the client's limit (MAX_FIND_SLOT_BYTES by default for findSlot); a larger
   * value is `bridge.invalid_argument`. On the module functions a larger value gets a
   * client of its own for the call.
   */
  maxInputBytes?: number;
}

export interface ClientOptions extends CallOptions {
  /** "bridge" (default): one long-lived `cerebri bridge`; "spawn": a process per call. */
  mode?: "bridge" | "spawn";
  /** The cerebri executable; default CEREBRI_BIN, then a project .venv, then PATH. */
  bin?: string;
  /** Working directory of the child, and where the .venv search starts. */
  cwd?: string;
  /** Environment of the child (and where CEREBRI_BIN and PATH are read). */
  env?: Record<string, string | undefined>;
  /**
   * Largest findSlot, rescheduleEvent, cancelEvent or updateEvent request in bytes (default
   * MAX_FIND_SLOT_BYTES); may be raised.
   */
  maxFindSlotBytes?: number;
  /** Largest answer in bytes (default MAX_OUTPUT_BYTES). */
  maxOutputBytes?: number;
  /** "spawn" mode: most processes at once (default os.availableParallelism()). */
  maxProcesses?: number;
}

/** An answer: its exact text (the HTTP body, compact JSON) and the parsed value. */
export interface Answer<T = JSONObject> {
  text: string;
  value: T;
}

/** PlanningResult (planner.md): outcome, assessment, validation, candidates, ... */
export interface PlanningResult extends JSONObject {
  outcome: string;
  assessment: string;
  validation: ValidationReport;
}
/** One meeting of an optimised batch: where it goes, its room, and whether it is new or moved. */
export interface BatchAssignment extends JSONObject {
  object_id: string;
  /** Half-open, RFC 3339 UTC instants. */
  range: { start: string; end: string };
  room_id: string | null;
  moved: boolean;
  new: boolean;
}
/** A named cost of the batch's score (`early`, `move`, `back_to_back`, ...). */
export interface BatchTerm extends JSONObject {
  name: string;
  meeting_id: string;
  other: string | null;
  person: string | null;
  amount: number;
  cost: number;
}
/**
 * The `batch` member of an OPTIMIZE answer: `status` OPTIMAL (proven), FEASIBLE (best found,
 * `bound` the solver's bound), INFEASIBLE (`conflict`: the minimal set of conflicting rules)
 * or UNKNOWN; `score` null when there is no placement.
 */
export interface BatchAnswer extends JSONObject {
  status: "OPTIMAL" | "FEASIBLE" | "INFEASIBLE" | "UNKNOWN";
  score: { hard: number; medium: number; soft: number } | null;
  bound: number | null;
  assignments: BatchAssignment[];
  terms: BatchTerm[];
  conflict: { kind: string; ids: string[] }[];
  stats: { deterministic_time: number; branches: number; conflicts: number };
}
/** The PlanningResult of an OPTIMIZE request: `batch` is null when the request does not validate. */
export interface BatchPlanningResult extends PlanningResult {
  batch: BatchAnswer | null;
}
/** ValidationReport: state and issues. */
export interface ValidationReport extends JSONObject {
  state: string;
  issues: JSONValue[];
}
/** TemporalResult (/v1/temporal): status and data, or a typed envelope error. */
export interface TemporalResult extends JSONObject {
  status: string;
}
/** FindSlotAnswer (/v1/find-slot): ranked slots, busy time, warnings. */
export interface FindSlotAnswer extends JSONObject {
  outcome: string;
  assessment: string;
  complete: boolean;
  slots: JSONObject[];
}

/**
 * EventChangeAnswer (/v1/events/reschedule, /cancel, /update): `cerebri reschedule --json`
 * (the PlanningResult, warnings, the event before, the CPIR `change`) plus `request`, the
 * CPIR request to propose.
 */
export interface EventChangeAnswer extends JSONObject {
  outcome: string;
  assessment: string;
  candidates: JSONObject[];
  event: JSONObject;
  change: JSONObject;
  request: JSONObject;
}

export interface Client {
  call(op: Operation, request: Request, options?: CallOptions): Promise<Answer>;
  plan(request: Request, options?: CallOptions): Promise<PlanningResult>;
  validate(request: Request, options?: CallOptions): Promise<ValidationReport>;
  temporal(request: Request, options?: CallOptions): Promise<TemporalResult>;
  findSlot(request: Request, options?: CallOptions): Promise<FindSlotAnswer>;
  rescheduleEvent(request: Request, options?: CallOptions): Promise<EventChangeAnswer>;
  cancelEvent(request: Request, options?: CallOptions): Promise<EventChangeAnswer>;
  updateEvent(request: Request, options?: CallOptions): Promise<EventChangeAnswer>;
  /** A CPIR OPTIMIZE request's PlanningResult (`cerebri optimize --json`, POST /v1/optimize). */
  optimize(request: Request, options?: CallOptions): Promise<BatchPlanningResult>;
  /**
   * Wait for the calls in flight, then end the process(es) and wait until they are gone;
   * later calls fail with `bridge.closed`, and so do queued calls if the bridge dies first.
   */
  close(): Promise<void>;
}

/** A client with its own options and process(es). */
export function createClient(options?: ClientOptions): Client;

/** The cerebri executable these options find; throws CerebriError `bridge.not_found`. */
export function findCerebri(options?: Pick<ClientOptions, "bin" | "cwd" | "env">): string;

/** Through the shared client (or, with client options, a client of its own for the call). */
export function plan(request: Request, options?: ClientOptions): Promise<PlanningResult>;
export function validate(request: Request, options?: ClientOptions): Promise<ValidationReport>;
export function temporal(request: Request, options?: ClientOptions): Promise<TemporalResult>;
export function findSlot(request: Request, options?: ClientOptions): Promise<FindSlotAnswer>;
export function rescheduleEvent(request: Request, options?: ClientOptions): Promise<EventChangeAnswer>;
export function cancelEvent(request: Request, options?: ClientOptions): Promise<EventChangeAnswer>;
export function updateEvent(request: Request, options?: ClientOptions): Promise<EventChangeAnswer>;
export function optimize(request: Request, options?: ClientOptions): Promise<BatchPlanningResult>;
export function call(op: Operation, request: Request, options?: ClientOptions): Promise<Answer>;

/** Close the shared client (a later call starts a new one). */
export function close(): Promise<void>;
