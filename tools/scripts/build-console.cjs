#!/usr/bin/env node
// Bundles the web console (apps/console-web/src/main.ts) into static files the HTTP API serves at /:
// dist/index.html and dist/assets/app.{js,css}, minified, referenced with a content-hash query so a
// browser may cache them and still picks up a new build. No CDN, no external fonts (docs/decisions/0063).
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const esbuild = require('esbuild');

const root = join(__dirname, '..', '..', 'apps', 'console-web');
const dist = join(root, 'dist');
const assets = join(dist, 'assets');

/** The page allows only its own scripts, styles and API: model or file text can never load anything. */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const hashOf = (file) => createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 12);

function indexHtml(js, css) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="referrer" content="no-referrer">
<title>Stagecraft console</title>
<link rel="stylesheet" href="/assets/app.css?v=${css}">
<script type="module" src="/assets/app.js?v=${js}"></script>
</head>
<body>
<div id="app"><p class="loading">Loading…</p></div>
</body>
</html>
`;
}

async function main() {
  rmSync(assets, { recursive: true, force: true });
  mkdirSync(assets, { recursive: true });
  await esbuild.build({
    entryPoints: { app: join(root, 'src', 'main.ts') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022'],
    platform: 'browser',
    outdir: assets,
    legalComments: 'none',
    logLevel: 'warning',
    tsconfig: join(root, 'tsconfig.json'),
  });
  writeFileSync(join(dist, 'index.html'), indexHtml(hashOf(join(assets, 'app.js')), hashOf(join(assets, 'app.css'))));
}

main().catch((error) => {
  console.error(`console build failed: ${error.message}`);
  process.exit(1);
});
