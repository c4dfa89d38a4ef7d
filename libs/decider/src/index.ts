/** The one shape of every decider (decide, evolve, initial state), the decision it builds, and its given / when / then specification. */
export { type Decided, type Decider, fold } from './decider';
export { Decision } from './decision';
export { Needed, type Outcome, needs, outcomeOf } from './needed';
export { type When, spec } from './specification';
