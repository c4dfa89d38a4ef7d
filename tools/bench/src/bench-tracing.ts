import 'reflect-metadata';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchSpanProcessor, ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { startTracing } from '@stagecraft/telemetry';
import { scriptedGateway } from './embedded-services';
import { Deployment, embedded, runOnce, startModelProcess } from './run-bench';
import { ms, percentile } from './stats';

/**
 * `npm run bench:tracing [blocks] [runs per block]`: what recording spans costs a run, embedded over HTTP,
 * tracing off and on in alternating blocks on the same services (tracing is switched per process, and
 * every span helper asks whether it is on at each call). On, spans go through the SDK's batch processor
 * to an exporter that drops them: what is measured is the recording, not a collector.
 */
const print = (line: string) => process.stdout.write(`${line}\n`);

/** Takes every batch and keeps nothing, counting spans so the run shows they were recorded. */
class DiscardingExporter implements SpanExporter {
  spans = 0;
  export(spans: ReadableSpan[], done: (result: { code: number }) => void): void {
    this.spans += spans.length;
    done({ code: 0 });
  }
  async shutdown(): Promise<void> {}
  async forceFlush(): Promise<void> {}
}

async function block(d: Deployment, project: string, runs: number, into: number[]): Promise<void> {
  for (let i = 0; i < runs; i++) {
    const s = await runOnce(d, project);
    if (s.ok) into.push((s.wallMs - s.modelMs - s.toolMs) / s.stages);
  }
}

async function main(): Promise<void> {
  const blocks = Number(process.argv[2] ?? 6);
  const perBlock = Number(process.argv[3] ?? 30);
  if (!Number.isInteger(blocks) || blocks < 1 || !Number.isInteger(perBlock) || perBlock < 1)
    throw new Error('usage: bench-tracing [blocks >= 1] [runs per block >= 1]');
  print(`node ${process.version}, ${new Date().toISOString()}`);
  const server = await startModelProcess();
  const dir = mkdtempSync(join(tmpdir(), 'stagecraft-tracing-bench-'));
  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# Sample\nA tiny project.\n');
  const d = await embedded(dir, scriptedGateway(server.url), 'embedded (inproc, sqlite), scripted model over HTTP');
  const exporter = new DiscardingExporter();
  const off: number[] = [];
  const on: number[] = [];
  try {
    await block(d, project, 20, []);
    for (let b = 0; b < blocks; b++) {
      await block(d, project, perBlock, off);
      const tracing = startTracing({ serviceName: 'bench', spanProcessors: [new BatchSpanProcessor({ exporter })] });
      await block(d, project, perBlock, on);
      await tracing.shutdown();
    }
    const [p50Off, p50On] = [percentile(off, 50), percentile(on, 50)];
    print(`tracing off: ${off.length} runs, overhead per stage p50 ${ms(p50Off, 3)}, p99 ${ms(percentile(off, 99), 3)}`);
    print(
      `tracing on:  ${on.length} runs, overhead per stage p50 ${ms(p50On, 3)}, p99 ${ms(percentile(on, 99), 3)}; ${exporter.spans} spans exported`,
    );
    const ratio = p50On / p50Off;
    print(`tracing on / off: ${ratio.toFixed(2)}x (target <= 1.3x: ${ratio <= 1.3 ? 'meets' : 'misses'})`);
  } finally {
    await d.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
