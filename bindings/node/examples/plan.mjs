// Plan one CPIR request with cerebri and print the PlanningResult as indented JSON.
//
//   node examples/plan.mjs path/to/request.json
//
// The request files of cerebri's own examples are in src/cerebri/service/examples/.
// Exit status 0 with the result on stdout; 1 with `error CODE at PATH: message` on stderr.
import { readFileSync } from "node:fs";
import { CerebriError, close, plan } from "cerebri";

const file = process.argv[2];
if (!file) {
  console.error("usage: node examples/plan.mjs REQUEST.json");
  process.exit(2);
}

try {
  const result = await plan(readFileSync(file, "utf8"));
  process.stdout.write(JSON.stringify(result, null, 2) + "\n");
} catch (error) {
  if (!(error instanceof CerebriError)) throw error;
  const where = error.path === null ? "" : ` at ${error.path}`;
  console.error(`error ${error.code}${where}: ${error.message}`);
  process.exitCode = 1;
} finally {
  await close();
}
