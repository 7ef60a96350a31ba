/**
 * `npm run admin -- <command>`: creates orgs, accounts and API keys and revokes keys through the
 * gateway's admin API, so nobody has to hand-write curl bodies. `npm run admin -- help` lists it all.
 */
import { runAdminCli } from './admin-run';

runAdminCli(process.argv.slice(2), process.env, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  fetch: (input, init) => fetch(input, init),
}).then(
  (code) => {
    // exitCode rather than exit(): lets stdout drain when it is a pipe.
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`admin: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
