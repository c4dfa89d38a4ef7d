import type { ApprovalPolicy, PhaseName, ServiceName, UserMode } from '@stagecraft/contracts';
import { InvalidArgumentError } from 'commander';

/*
 * Option parsers that load nothing: every command registers its options at start-up, and `--help`
 * must not pay for the system behind them. The lists repeat the contracts' enums; options.spec.ts
 * holds them equal.
 */

export const USER_MODES: readonly UserMode[] = ['agent', 'chat'];
export const APPROVAL_POLICIES: readonly ApprovalPolicy[] = ['never', 'writes', 'commands'];
export const PHASE_NAMES: readonly PhaseName[] = ['discovery', 'planning', 'tickets'];
export const SERVICES: readonly ServiceName[] = ['conversation', 'policy', 'prompt-assembly', 'tool-execution', 'qa', 'memory'];
export const GATES = ['after-planning', 'before-merge'] as const;
export type Gate = (typeof GATES)[number];

const listOf = (value: string): string[] =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** One of `choices`, or a usage error naming them. */
export const oneOf =
  <T extends string>(choices: readonly T[], what = choices.join(' | ')) =>
  (value: string): T => {
    if (!(choices as readonly string[]).includes(value)) throw new InvalidArgumentError(what);
    return value as T;
  };

/** A comma-separated list drawn from `choices`; an unknown entry is named, with the ones there are. */
export const listFrom =
  <T extends string>(choices: readonly T[], noun: string) =>
  (value: string): T[] => {
    const items = listOf(value);
    const unknown = items.filter((item) => !(choices as readonly string[]).includes(item));
    if (items.length === 0 || unknown.length > 0)
      throw new InvalidArgumentError(
        `${unknown.length > 0 ? `unknown ${noun}(s) ${unknown.join(', ')}; ` : ''}a comma-separated list of ${choices.join(', ')}`,
      );
    return items as T[];
  };

/**
 * A whole number within bounds, written in digits only: `Number.parseInt('abc')` is NaN and
 * `parseInt('10s')` is 10, and either slipped through to a timer or a query before.
 */
export const wholeNumber =
  (min: number, max = Number.MAX_SAFE_INTEGER, unit = '') =>
  (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || n < min || n > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `from ${min}` : `from ${min} to ${max}`;
      throw new InvalidArgumentError(`a whole number ${range}${unit}, got '${value}'`);
    }
    return n;
  };

/** Milliseconds for a timeout: at least 1, at most a day. */
export const milliseconds = wholeNumber(1, 86_400_000, ' (milliseconds)');

export const parseServices = listFrom(SERVICES, 'service');
export const parseTransport = oneOf(['inproc', 'nats'] as const, 'inproc or nats');
export const parseMode = oneOf(USER_MODES, 'agent or chat');
export const parseApprovalPolicy = oneOf(APPROVAL_POLICIES, 'never, writes or commands');
export const parsePhases = listFrom(PHASE_NAMES, 'phase');
export const parseGates = listFrom(GATES, 'gate');
export const parsePort = wholeNumber(0, 65_535, ' (0: any free port)');

/** A revision as written; the service says whether it ends a commit of that run. */
export const parseRevision = (value: string): number => {
  if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError('a revision: a whole number from 0');
  return Number(value);
};
