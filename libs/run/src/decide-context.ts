import type { Fault, Knowledge } from './inputs';
import type { RunLimits } from './limits';
import type { Transition } from './rules';

/** What a decision is given besides the input and the state: the run's bounds and the facts fetched for it. */
export interface DecideContext {
  limits: RunLimits;
  knowledge: Knowledge;
}

/** What an interpreted answer leads to. */
export type Follow =
  | { kind: 'stay' }
  | { kind: 'enter'; transition: Transition; guidance?: { promptId: string; reason: string } }
  | { kind: 'correct'; promptId: string; reason: string }
  | { kind: 'fail'; fault: Fault };
