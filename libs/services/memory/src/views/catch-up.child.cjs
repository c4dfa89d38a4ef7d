// Child process for restart.int.spec.ts: the memory service's read models catching up over a SQLite
// file, until the test kills it. It loads the TypeScript sources directly, so the test needs no build.
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const ts = require('typescript');

const libs = path.resolve(__dirname, '../../../..');
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

const { createSqliteEventStore } = require('@stagecraft/event-store');
const { READ_MODELS } = require('@stagecraft/read-models');
const { ViewHost } = require('./view-host.ts');

async function main() {
  const [dbPath, checkpointGapMs] = process.argv.slice(2);
  const store = createSqliteEventStore({ path: dbPath });
  await ViewHost.start(store, READ_MODELS, {
    checkpointGapMs: Number(checkpointGapMs),
    onFailure: (name, error) => process.stderr.write(`${name} failed: ${error && error.stack ? error.stack : error}\n`),
  });
  process.stdout.write('started\n');
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
