// A stand-in for `cerebri bridge` that misbehaves on purpose (tests only). The behaviour is
// FAKE_MODE; FAKE_PIDS names a file that gets this process's pid (and a grandchild's) per line.
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";

const mode = process.env.FAKE_MODE ?? "echo";
const pids = process.env.FAKE_PIDS;
if (pids) appendFileSync(pids, `${process.pid}\n`);

let input = Buffer.alloc(0);
let answered = false;

function header() {
  const newline = input.indexOf(10);
  if (newline < 0) return null;
  const head = JSON.parse(input.subarray(0, newline).toString("utf8"));
  if (input.length < newline + 1 + head.length) return null;
  return head;
}

function act(head) {
  switch (mode) {
    case "echo": {
      const body = JSON.stringify({ op: head.op, pid: process.pid });
      process.stdout.write(JSON.stringify({ id: head.id, ok: true, length: Buffer.byteLength(body) }) + "\n" + body + "\n");
      break;
    }
    case "crash":
      process.kill(process.pid, "SIGKILL");
      break;
    case "cli-error":
      process.stderr.write("error cpir.unknown_field at /scope/extra: unknown field\n");
      process.exit(2);
      break;
    case "exit":
      process.stderr.write("something went wrong\n");
      process.exit(3);
      break;
    case "invalid":
      process.stdout.write("this is not JSON\n");
      break;
    case "invalid-body":
      process.stdout.write(JSON.stringify({ id: head.id, ok: true, length: 5 }) + "\n{nop}\n");
      break;
    case "wrong-id":
      process.stdout.write(JSON.stringify({ id: "other", ok: true, length: 2 }) + "\n{}\n");
      break;
    case "hang":
    case "flood": {
      const sleeper = spawn("sleep", ["1000"], { stdio: "ignore" });
      if (pids) appendFileSync(pids, `${sleeper.pid}\n`);
      if (mode === "flood") {
        process.stdout.write(JSON.stringify({ id: head.id, ok: true, length: 64 * 1024 * 1024 }) + "\n");
        const block = Buffer.alloc(1024 * 1024, 0x20);
        const more = () => process.stdout.write(block, more);
        more();
      }
      setInterval(() => {}, 1000);
      break;
    }
    case "babble": {
      const block = Buffer.alloc(1024 * 1024, 0x61); // an endless header line
      const more = () => process.stdout.write(block, more);
      more();
      break;
    }
    default:
      process.stderr.write(`unknown FAKE_MODE ${mode}\n`);
      process.exit(9);
  }
}

process.stdin.on("data", (chunk) => {
  input = Buffer.concat([input, chunk]);
  for (let head = header(); head !== null && !answered; head = header()) {
    input = input.subarray(input.indexOf(10) + 1 + head.length);
    answered = mode !== "echo"; // echo answers every request, the others act once
    act(head);
  }
});
process.stdin.on("end", () => {
  if (mode === "echo") process.exit(0);
});
