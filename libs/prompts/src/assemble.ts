import { createHash } from 'node:crypto';
import { PromptAssembleReply, PromptAssembleRequest } from '@stagecraft/contracts';
import { ContributorRegistry, createContributorRegistry } from './contributors/registry';
import { instructionXmlLine } from './instructions';
import { PromptRepository } from './repository';

const NO_CONTRIBUTORS = createContributorRegistry();

/** Contributors appear in `promptIds` under this prefix, which no prompt id can start with. */
export const CONTRIBUTOR_ID_PREFIX = 'contributor:';

interface Section {
  id: string;
  text: string;
  /** The same in every stage of the run. */
  runWide: boolean;
}

/**
 * Seed 002 §5.2: the policy's prompts in its order, then contributor sections by priority and name,
 * then one XML line per active instruction. Same request and same prompts give the same bytes and hash.
 *
 * With `layout: split` (docs/decisions/0052) the sections the whole run shares (the policy's leading
 * `runPrompts`, run-wide contributors) make `system`, and the rest, in the same order, `stage`: the
 * caller sends `stage` after the history, so every request of the run starts with the same bytes.
 */
export function assemblePrompt(
  repo: PromptRepository,
  request: PromptAssembleRequest,
  contributors: ContributorRegistry = NO_CONTRIBUTORS,
): PromptAssembleReply {
  const { policy, variables, instructions, agentType, upstream, previousAttempt, recalled, projectMap, maxDelegationDepth } = request;
  const runPrompts = request.layout === 'split' ? (policy.runPrompts ?? 0) : policy.prompts.length;
  const sections: Section[] = policy.prompts.map((id, i) => ({ id, text: repo.render(id, variables), runWide: i < runPrompts }));

  for (const contributor of contributors.select(agentType, policy)) {
    const text =
      contributor
        .contribute({ agentType, policy, variables, instructions, upstream, previousAttempt, recalled, projectMap, maxDelegationDepth })
        ?.trim() ?? '';
    if (text.length === 0) continue;
    sections.push({ id: `${CONTRIBUTOR_ID_PREFIX}${contributor.name}`, text, runWide: contributor.runWide === true });
  }

  if (instructions.length > 0) sections.push({ id: '', text: instructions.map(instructionXmlLine).join('\n'), runWide: false });

  const promptIds = sections.filter((s) => s.id !== '').map((s) => s.id);
  const joined = (part: readonly Section[]) => (part.length > 0 ? `${part.map((s) => s.text).join('\n\n')}\n` : '');
  if (request.layout !== 'split') {
    const system = joined(sections);
    return { system, promptIds, hash: sha256(system) };
  }
  const system = joined(sections.filter((s) => s.runWide));
  const stage = joined(sections.filter((s) => !s.runWide));
  return { system, stage, promptIds, hash: sha256(`${system}\u0000${stage}`) };
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
