import { startScriptedModelServer } from '@stagecraft/scripted-model';
import { readWriteAgentScript } from '@stagecraft/testing';

/**
 * The bench's model in a process of its own, like a real endpoint: its HTTP work never shares the
 * event loop of the services being measured. Prints its URL, and stops when stdin closes.
 */
async function main(): Promise<void> {
  const server = await startScriptedModelServer({ script: readWriteAgentScript });
  process.stdout.write(`${server.url}\n`);
  process.stdin.resume();
  process.stdin.once('end', () => void server.close().then(() => process.exit(0)));
}

void main();
