import { performance } from 'node:perf_hooks';
import { HealthReply, SERVICE_NAMES, ServiceName, healthSubject, toErrorReply } from '@stagecraft/contracts';
import { Requester } from '@stagecraft/messaging';
import { formatTable } from '../table';

export interface HealthRow {
  service: ServiceName;
  up: boolean;
  latencyMs: number;
  reply?: HealthReply;
  error?: string;
}

/** Asks every service at once; a service that fails to answer is down, with the reason. */
export async function checkHealth(requester: Requester, timeoutMs: number): Promise<HealthRow[]> {
  return Promise.all(
    SERVICE_NAMES.map(async (service): Promise<HealthRow> => {
      const started = performance.now();
      try {
        const reply = (await requester.request(healthSubject(service), {}, { timeoutMs })) as HealthReply;
        return { service, up: reply.status === 'ok', latencyMs: performance.now() - started, reply };
      } catch (error) {
        const { code, message } = toErrorReply(error);
        return { service, up: false, latencyMs: performance.now() - started, error: `${code}: ${message}` };
      }
    }),
  );
}

export function formatHealth(rows: HealthRow[]): string {
  return formatTable(
    ['SERVICE', 'STATUS', 'TRANSPORT', 'STORE', 'PID', 'LATENCY'],
    rows.map((r) => [
      r.service,
      r.up ? 'up' : `DOWN (${r.error ?? r.reply?.status})`,
      r.reply?.transport ?? '-',
      r.reply?.store ?? '-',
      r.reply ? String(r.reply.pid) : '-',
      `${r.latencyMs.toFixed(1)} ms`,
    ]),
  );
}
