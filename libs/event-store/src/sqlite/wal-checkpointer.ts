import { Worker } from 'node:worker_threads';

export interface WalCheckpointer {
  stop(): Promise<void>;
}

// Runs in its own thread with its own connection; a string so that the built and the ts-jest copies behave alike.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(workerData.path);
db.exec('PRAGMA busy_timeout = ' + workerData.busyTimeoutMs);
const checkpoint = () => {
  try {
    db.exec('PRAGMA wal_checkpoint(PASSIVE)');
  } catch {
    // busy or closing: the next tick tries again, and the writer's own threshold is the backstop
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

/**
 * Copies the write-ahead log into the database file from a worker thread, as the SQLite docs suggest
 * for latency-sensitive writers: a commit then only appends to the log, and the page copying and
 * fsync of a checkpoint never run on the thread that serves requests. PASSIVE never blocks a writer.
 */
export function startWalCheckpointer(path: string, options: { intervalMs: number; busyTimeoutMs: number }): WalCheckpointer {
  const worker = new Worker(WORKER, { eval: true, workerData: { path, ...options } });
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('error', () => undefined);
  return {
    async stop() {
      // Held open until the last checkpoint is done: an unreferenced worker would let the process exit mid-close.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
