#!/usr/bin/env node
// Writes contracts/**/*.schema.json from the zod schemas in @stagecraft/contracts (never by hand).
const { mkdirSync, rmSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const { jsonSchemaFiles, renderSchemaFile } = require('@stagecraft/contracts');

const out = join(__dirname, '..', '..', 'contracts');
rmSync(out, { recursive: true, force: true });
const files = jsonSchemaFiles();
for (const [path, schema] of Object.entries(files)) {
  const target = join(out, path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, renderSchemaFile(schema));
}
console.log(`wrote ${Object.keys(files).length} JSON Schema files to contracts/`);
