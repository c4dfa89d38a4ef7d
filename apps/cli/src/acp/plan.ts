import type { PlanEntry } from '@agentclientprotocol/sdk';
import type { ReasoningOutcome } from '@stagecraft/contracts';

/** The plan an editor shows: the warmup's plan, then each step's next action, the latest in progress. */
export type Plan = readonly PlanEntry[];

const NOTHING = /^(none|n\/a|-|no change)\.?$/i;

/** The items of a plan text: one per line, or per `1.`/`2.` numbering on one line, without the numbers. */
export function planItems(text: string): string[] {
  return text
    .split(/\n|\s(?=\d+[.)]\s)/)
    .map((item) => item.replace(/^\s*(?:[-*]|\d+[.)])\s*/, '').trim())
    .filter((item) => item !== '' && !NOTHING.test(item));
}

const entry = (content: string, status: PlanEntry['status']): PlanEntry => ({
  content: content.length > 500 ? `${content.slice(0, 499)}…` : content,
  priority: 'medium',
  status,
});

/** The plan after one reasoning outcome: the step in progress is done, new items join, the next action is in progress. */
export function evolvePlan(plan: Plan, outcome: ReasoningOutcome): Plan {
  const done = plan.map((e) => (e.status === 'in_progress' ? { ...e, status: 'completed' as const } : e));
  const added = planItems(outcome.plan_delta)
    .filter((item) => !done.some((e) => e.content === item))
    .map((item) => entry(item, 'pending'));
  const next = outcome.next_action.trim();
  const withNext = [...done, ...added];
  if (next === '' || NOTHING.test(next)) return withNext;
  const at = withNext.findIndex((e) => e.content === next && e.status === 'pending');
  if (at >= 0) return withNext.map((e, i) => (i === at ? { ...e, status: 'in_progress' as const } : e));
  return [...withNext, entry(next, 'in_progress')];
}

/** Once the run has ended, every entry is settled. */
export const finishPlan = (plan: Plan): Plan => plan.map((e) => (e.status === 'completed' ? e : { ...e, status: 'completed' as const }));
