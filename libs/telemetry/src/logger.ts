import pino, { DestinationStream, Logger, LevelWithSilent } from 'pino';
import { currentRunId } from './run-context';
import { activeTraceId } from './spans';

export interface LoggerOptions {
  /** The service (or `stagecraft` for several in one process) every line names. */
  service: string;
  level: LevelWithSilent;
  /** Default: stderr, made readable by pino-pretty when it is a terminal, JSON lines otherwise. */
  destination?: DestinationStream;
}

/** What every line carries besides its own fields: the run and the trace it belongs to, when known. */
export function logContext(): { runId?: string; traceId?: string } {
  const runId = currentRunId();
  const traceId = activeTraceId();
  if (runId === undefined && traceId === undefined) return {};
  return traceId === undefined ? { runId } : runId === undefined ? { traceId } : { runId, traceId };
}

function stderr(): DestinationStream {
  if (!process.stderr.isTTY) return pino.destination(2);
  // Loaded only for a terminal: it is a person reading, not a log collector.
  const pretty = require('pino-pretty') as typeof import('pino-pretty');
  return pretty({ destination: 2, colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
}

/** A service's logger: level names (`"level":"info"`), ISO times, `service`, and `runId` / `traceId` on every line where known. */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { pid: process.pid, service: options.service },
      formatters: { level: (label) => ({ level: label }) },
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin: logContext,
    },
    options.destination ?? stderr(),
  );
}
