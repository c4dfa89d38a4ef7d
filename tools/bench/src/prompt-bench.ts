import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Instruction, PolicyDecideRequest, PromptAssembleRequest, Stage, UserMode } from '@stagecraft/contracts';
import { decideStagePolicy } from '@stagecraft/policy';
import {
  assemblePrompt,
  createContributorRegistry,
  delegationBriefContributor,
  episodicMemoryContributor,
  loadPromptDirectory,
  PromptContributor,
} from '@stagecraft/prompts';
import { ms, percentile } from './stats';

export interface PromptBenchOptions {
  promptDir?: string;
  iterations?: number;
  policyIterations?: number;
}

export interface PromptBenchResult {
  loadMs: number;
  promptCount: number;
  systemChars: number;
  contributorsFired: number;
  assembleP50: number;
  assembleP99: number;
  policyDecisionsPerSecond: number;
}

const HISTORY = 50;

/** What a 50-message run hands the assembler: its tool summary, the last outcome and the messages' instructions. */
function historyRequest(): PromptAssembleRequest {
  const toolSummary = Array.from({ length: HISTORY / 2 }, (_, i) =>
    i % 5 === 4
      ? `- run_command \`npm test -- pkg/${i}\`: exit 1, 3 failing tests in pkg/${i}/src/parse.spec.ts (output cut at 64 KiB)`
      : `- read_file src/module-${i}/index.ts: ok, 184 lines; search_code "parseConfig": 4 matches in 3 files`,
  ).join('\n');
  const instructions: Instruction[] = [
    {
      kind: 'DelegateReasoning',
      agentType: 'test-analyst',
      agentPrompt: 'You are a test failure analyst. '.repeat(90),
      markIntermediate: true,
    },
    ...Array.from({ length: HISTORY - 2 }, (): Instruction => ({ kind: 'IntermediateReasoning' })),
    { kind: 'ReturnControl' },
  ];
  return {
    policy: decideStagePolicy({
      userMode: 'agent',
      reasoningEnabled: true,
      stage: 'tool_followup',
      delegation: { depth: 1, chain: ['test-analyst'] },
    }),
    variables: {
      project_root: '/home/dev/projects/stagecraft-sample',
      user_input: 'Make the config parser accept YAML as well as JSON and keep every existing test green.',
      tool_summary: toolSummary,
      last_step_outcome:
        'Plan delta: also cover src/load.ts. Next action: patch src/config.ts. Known risks: dynamic callers. Delivery: NEEDS_WORK',
    },
    instructions,
    agentType: 'main',
  };
}

/** Eight synthetic contributors next to the two real ones: ten in all, with ties on priority. */
function tenContributors(): PromptContributor[] {
  const synthetic = Array.from({ length: 8 }, (_, i): PromptContributor => ({
    name: `tool-guidance-${i}`,
    agentTypes: i % 4 === 3 ? ['main', 'test-analyst'] : 'all',
    priority: 20 + (i % 3) * 10,
    contribute: ({ policy, variables }) =>
      `## Tool guidance ${i}\n\nIn ${policy.stage}, with ${policy.tools.length} tools under ${variables.project_root}: ` +
      'prefer targeted reads and searches, batch independent calls, and check every result before the next step. '.repeat(3),
  }));
  return [episodicMemoryContributor, delegationBriefContributor, ...synthetic];
}

function policyDecisionsPerSecond(iterations: number): number {
  const requests: PolicyDecideRequest[] = UserMode.options.flatMap((userMode) =>
    [true, false].flatMap((reasoningEnabled) =>
      Stage.options.flatMap((stage) =>
        [0, 1, 3].map((depth) => ({
          userMode,
          reasoningEnabled,
          stage,
          delegation: { depth, chain: Array.from({ length: depth }, () => 'specialist') },
        })),
      ),
    ),
  );
  for (let i = 0; i < 10_000; i++) decideStagePolicy(requests[i % requests.length]);
  const started = performance.now();
  let tools = 0;
  for (let i = 0; i < iterations; i++) tools += decideStagePolicy(requests[i % requests.length]).tools.length;
  const elapsed = performance.now() - started;
  if (tools < 0) throw new Error('unreachable; keeps the loop from being optimised away');
  return Math.round(iterations / (elapsed / 1000));
}

/** Prompt assembly over the full prompts/ inventory and ten contributors, and the policy decision rate. */
export function runPromptBench(print: (line: string) => void, options: PromptBenchOptions = {}): PromptBenchResult {
  const { promptDir = join(process.cwd(), 'prompts'), iterations = 5_000, policyIterations = 500_000 } = options;
  const loadStarted = performance.now();
  const repo = loadPromptDirectory(promptDir);
  const loadMs = performance.now() - loadStarted;
  const contributors = createContributorRegistry(tenContributors());
  const request = historyRequest();

  const first = assemblePrompt(repo, request, contributors);
  for (let i = 0; i < 500; i++) assemblePrompt(repo, request, contributors);
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const started = performance.now();
    const reply = assemblePrompt(repo, request, contributors);
    samples.push(performance.now() - started);
    if (reply.hash !== first.hash) throw new Error('assembly is not deterministic');
  }

  const result: PromptBenchResult = {
    loadMs,
    promptCount: repo.ids().length,
    systemChars: first.system.length,
    contributorsFired: first.promptIds.filter((id) => id.startsWith('contributor:')).length,
    assembleP50: percentile(samples, 50),
    assembleP99: percentile(samples, 99),
    policyDecisionsPerSecond: policyDecisionsPerSecond(policyIterations),
  };
  print(`prompts: ${result.promptCount} loaded in ${ms(result.loadMs, 2)}`);
  print(
    `prompt assembly (${HISTORY}-message history, ${result.contributorsFired} contributors, ${result.systemChars} chars): ` +
      `p50 ${ms(result.assembleP50)}, p99 ${ms(result.assembleP99)} over ${iterations} runs`,
  );
  print(`policy decisions: ${result.policyDecisionsPerSecond.toLocaleString('en-US')} per second`);
  return result;
}
