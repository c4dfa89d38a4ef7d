import { ScriptedReply } from '../script';
import { Conversation, ToolExchange, chatMode, reasoningRequested } from './conversation';
import { NOTES_FILE, describingFile, listedEntries, notesContent, summarise } from './project-facts';
import { microBlock, withReasoning } from './reasoning-text';
import { toolCall } from './tool-call';

/**
 * One step of the tool loop, decided from the tool results so far: list the root, read the file that
 * describes the project, write the notes, then answer. A step whose tool is not offered is skipped.
 */
export function actStep(c: Conversation): ScriptedReply {
  const reasoning = reasoningRequested(c);
  const listing = last(c, 'list_dir');
  const read = last(c, 'read_file');
  const written = last(c, 'write_file');
  if (!listing && c.offered.has('list_dir')) {
    const block = microBlock({
      observation: 'Nothing in the project has been inspected yet; the root listing comes first.',
      planDelta: 'none',
      nextAction: "list_dir on '.'",
      knownRisks: 'a large root is only listed one level deep',
      delivery: 'NEEDS_WORK',
    });
    return {
      content: withReasoning(reasoning, block, 'Listing the project root first.'),
      toolCalls: [toolCall(c, 0, 'list_dir', { path: '.' })],
    };
  }
  const target = listing ? describingFile(listing.result) : null;
  if (!read && target && c.offered.has('read_file')) {
    const block = microBlock({
      observation: `The root has ${listedEntries(listing?.result ?? '').length} entries; ${target} should say what the project is.`,
      planDelta: `read ${target} before writing the notes`,
      nextAction: `read_file ${target}`,
      knownRisks: `${target} may be out of date`,
      delivery: 'NEEDS_WORK',
    });
    return { content: withReasoning(reasoning, block, `Reading ${target}.`), toolCalls: [toolCall(c, 0, 'read_file', { path: target })] };
  }
  if (!written && listing && c.offered.has('write_file')) {
    const summary = read ? summarise(String(read.args['path'] ?? target ?? ''), read.result) : null;
    const observation = summary
      ? `${summary.path} has ${summary.lines} lines, titled "${summary.title}".`
      : 'No describing file could be read; the listing alone will have to do.';
    const block = microBlock({
      observation,
      planDelta: 'none',
      nextAction: `write_file ${NOTES_FILE} with the summary`,
      knownRisks: `an existing ${NOTES_FILE} is replaced`,
      delivery: 'NEEDS_WORK',
    });
    const content = notesContent(c.userInput, listedEntries(listing.result), summary);
    return {
      content: withReasoning(reasoning, block, `Writing ${NOTES_FILE}.`),
      toolCalls: [toolCall(c, 0, 'write_file', { path: NOTES_FILE, content })],
    };
  }
  return finalAnswer(c, reasoning, listing, read, written);
}

function finalAnswer(
  c: Conversation,
  reasoning: boolean,
  listing?: ToolExchange,
  read?: ToolExchange,
  written?: ToolExchange,
): ScriptedReply {
  if (!listing && !written) {
    // No tools in this stage (chat mode): answer from the conversation, and say so.
    const block = microBlock({
      observation: 'This stage offers no tools, so the answer rests on the conversation alone.',
      planDelta: 'none',
      nextAction: 'final answer',
      knownRisks: 'nothing in the project was inspected',
      delivery: 'DONE',
    });
    const answer = chatMode(c)
      ? `You asked: "${c.userInput}". From the conversation alone I can only outline an approach: look at the project's README and entry points first, then make the change there. I have not opened or run anything.`
      : `You asked: "${c.userInput}". No tools were available in this step, so nothing in the project was inspected or changed.`;
    return { content: withReasoning(reasoning, block, answer) };
  }
  const parts = [`I listed the project root (${listedEntries(listing?.result ?? '').length} entries)`];
  if (read) parts.push(`read ${String(read.args['path'])} ("${summarise('', read.result).title}")`);
  if (written) parts.push(`wrote ${NOTES_FILE} summarising it${writeDetail(written.result)}`);
  const block = microBlock({
    observation: written
      ? `The write result confirms ${NOTES_FILE}: ${written.result}`
      : 'Writing is not offered here; the findings go into the answer instead.',
    planDelta: 'none',
    nextAction: 'final answer',
    knownRisks: 'the notes are only as current as the README they summarise',
    delivery: 'DONE',
  });
  const listed = parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}` : parts[0];
  return { content: withReasoning(reasoning, block, `${listed}. Nothing else in the project was changed.`) };
}

/** ` (374 bytes, created)` from the write_file result, when it says so. */
function writeDetail(result: string): string {
  const match = /(\d+) bytes .*\((created|replaced)\)/.exec(result);
  return match ? ` (${match[1]} bytes, ${match[2]})` : '';
}

function last(c: Conversation, name: string): ToolExchange | undefined {
  return c.exchanges.filter((e) => e.name === name).pop();
}
