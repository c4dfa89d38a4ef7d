#!/usr/bin/env node
'use strict';
// Written for any Node: it runs before we know which one started it.
var fs = require('fs');
var path = require('path');

/** The `engines.node` range of the repository's package.json: comparators such as ">=24.11 <25". */
function enginesRange() {
  var manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8'));
  return manifest.engines.node;
}

function parts(version) {
  var numbers = String(version).replace(/^v/, '').split('.');
  return [Number(numbers[0]) || 0, Number(numbers[1]) || 0, Number(numbers[2]) || 0];
}

function compare(a, b) {
  for (var i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

/** True when `version` meets every comparator of `range` (>=, >, <=, <, =; space-separated, all must hold). */
function satisfies(version, range) {
  return range
    .trim()
    .split(/\s+/)
    .every(function (comparator) {
      var match = /^(>=|<=|>|<|=)?v?(\d+(?:\.\d+){0,2})$/.exec(comparator);
      if (!match) return false;
      var order = compare(parts(version), parts(match[2]));
      switch (match[1] || '=') {
        case '>=':
          return order >= 0;
        case '>':
          return order > 0;
        case '<=':
          return order <= 0;
        case '<':
          return order < 0;
        default:
          return order === 0;
      }
    });
}

/** The Node that `npm install` brings as the `node` dev dependency, when it is there and fits the range. */
function bundledNode(range) {
  for (var dir = path.join(__dirname, '..'); ; dir = path.dirname(dir)) {
    var candidate = path.join(dir, 'node_modules', 'node');
    try {
      var version = JSON.parse(fs.readFileSync(path.join(candidate, 'package.json'), 'utf8')).version;
      var binary = path.join(candidate, 'bin', 'node');
      if (satisfies(version, range) && fs.statSync(binary).isFile()) return binary;
    } catch (error) {
      // Not here: look one directory up.
    }
    if (path.dirname(dir) === dir) return null;
  }
}

/** Runs this same command on `node`, passing signals on, and exits as it exits. */
function runOn(node) {
  var child = require('child_process').spawn(node, [__filename].concat(process.argv.slice(2)), {
    stdio: 'inherit',
    env: Object.assign({}, process.env, { STAGECRAFT_NODE_REEXEC: process.versions.node }),
  });
  // Ctrl-C reaches the whole foreground process group, the child too: passing it on would be a second one.
  process.on('SIGINT', function () {});
  ['SIGTERM', 'SIGHUP'].forEach(function (signal) {
    process.on(signal, function () {
      child.kill(signal);
    });
  });
  child.on('exit', function (code, signal) {
    if (code !== null) process.exit(code);
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
}

var range = enginesRange();
if (satisfies(process.versions.node, range)) {
  // Compiled code is kept on disk between runs (os.tmpdir()/node-compile-cache): a command starts faster the second time.
  require('module').enableCompileCache();
  require('../dist/main.js');
} else {
  // Once only: a re-executed process that still does not fit reports instead of looping.
  var bundled = process.env.STAGECRAFT_NODE_REEXEC ? null : bundledNode(range);
  if (bundled) runOn(bundled);
  else {
    process.stderr.write(
      'stagecraft needs Node ' +
        range +
        ' (node:sqlite and the packages it uses), but this is Node ' +
        process.versions.node +
        ' (' +
        process.execPath +
        ').\n' +
        'Install Node 24 (https://nodejs.org, or `nvm install 24`), or run `npm install` in the repository:\n' +
        'it brings Node 24 as a dependency, which this command then uses by itself (and every `npm run` script uses).\n',
    );
    process.exit(2);
  }
}
