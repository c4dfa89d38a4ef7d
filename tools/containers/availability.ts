import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@stagecraft/testing';

/**
 * The image the container suites run, as tools/jest/global-setup.cjs found it; when there is none,
 * the suite is reported NOT RUN with the reason (reports/not-run.txt) and its tests are skipped.
 */
export function containersImage(suite: string): { image: string; natsImage: string } | { notRun: string } {
  const image = process.env.STAGECRAFT_CONTAINERS_IMAGE;
  const natsImage = process.env.STAGECRAFT_NATS_IMAGE;
  if (image && natsImage) return { image, natsImage };
  const reason = process.env.STAGECRAFT_CONTAINERS_UNAVAILABLE ?? 'the Jest global setup did not probe for a container runtime';
  process.stderr.write(`${suite} NOT RUN: ${reason}\n`);
  const reports = join(REPO_ROOT, 'reports');
  mkdirSync(reports, { recursive: true });
  appendFileSync(join(reports, 'not-run.txt'), `${suite} (tools/containers): ${reason}\n`);
  return { notRun: reason };
}
