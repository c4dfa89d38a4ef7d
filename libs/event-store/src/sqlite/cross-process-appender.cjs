// Child process for sqlite.int.spec.ts: a second OS process appending to the same database file.
// It loads the adapter's TypeScript sources directly, so the test does not depend on a build.
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const { randomUUID } = require('node:crypto');
const ts = require('typescript');

const libs = path.resolve(__dirname, '../../..');
require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const compilerOptions = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true };
  module._compile(ts.transpileModule(source, { fileName: filename, compilerOptions }).outputText, filename);
};
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const lib = /^@stagecraft\/([a-z-]+)$/.exec(request);
  return resolveFilename.call(this, lib ? path.join(libs, lib[1], 'src', 'index.ts') : request, ...rest);
};

const { createSqliteEventStore } = require('./sqlite-event-store.ts');
const { raceForSlots } = require('./race-for-slots.testing.ts');

async function main() {
  const [dbPath, ownStream, raceStream, slots, scriptedSlots] = process.argv.slice(2);
  const store = createSqliteEventStore({ path: dbPath });
  process.stdout.write('ready\n');
  await new Promise((resolve) => process.stdin.once('data', resolve));
  process.stdin.destroy();
  const result = await raceForSlots(store, {
    ownStream,
    raceStream,
    slots: Number(slots),
    scriptedSlots: Number(scriptedSlots),
    side: 'child',
    newId: randomUUID,
  });
  await store.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
