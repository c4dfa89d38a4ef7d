import { existsSync } from 'node:fs';

/** Debian's Chromium, which the browser suites and the console bench drive through playwright-core. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Headless on a machine with a closed network: without the background-networking flags Chromium keeps
 * opening connections the network refuses, and looks up Google's hosts at every start.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Fails loudly, with the fix, when Chromium is not installed. */
export function requireChromium(): string {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `Chromium is missing at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (Debian; .ci/run installs it in CI).`,
    );
  return CHROMIUM;
}
