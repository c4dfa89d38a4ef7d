#!/usr/bin/env node
// Runs Jest once for the whole workspace and ends with the plain line CI reads:
// "N passed, N failed" (plus skipped tests, each suite that could not run named with its reason).
const { spawnSync } = require('node:child_process');
const { existsSync, mkdirSync, readFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..', '..');
const reports = join(root, 'reports');
const reportFile = join(reports, 'jest.json');
const notRunFile = join(reports, 'not-run.txt');
mkdirSync(reports, { recursive: true });
rmSync(reportFile, { force: true });
rmSync(notRunFile, { force: true });

const jest = require.resolve('jest/bin/jest');
const args = [jest, '--json', `--outputFile=${reportFile}`, ...process.argv.slice(2)];
const env = {
  ...process.env,
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules --no-warnings=ExperimentalWarning`.trim(),
};
const run = spawnSync(process.execPath, args, { cwd: root, env, stdio: 'inherit' });

if (!existsSync(reportFile)) {
  console.log(`jest produced no report (exit ${run.status})`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const report = JSON.parse(readFileSync(reportFile, 'utf8'));
const failedSuites = report.testResults.filter((s) => s.status === 'failed' && s.assertionResults.length === 0);
const failed = report.numFailedTests + failedSuites.length;
const skipped = report.numPendingTests + report.numTodoTests;
if (existsSync(notRunFile)) {
  for (const line of new Set(readFileSync(notRunFile, 'utf8').split('\n').filter(Boolean))) console.log(`NOT RUN: ${line}`);
}
for (const suite of failedSuites) console.log(`suite failed to run: ${suite.name}\n${suite.message}`);
const ranNothing = report.numTotalTests === 0;
if (ranNothing) console.log('no test was executed');
console.log(`${report.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || ranNothing || run.status !== 0 ? 1 : 0);
