import { ScriptedReply } from '../script';
import { Conversation, chatMode, macroRequested, oneLine, reasoningRequested } from './conversation';
import { NOTES_FILE } from './project-facts';
import { macroBlock, microBlock, withReasoning } from './reasoning-text';
import { toolCall } from './tool-call';

export function warmupStep(c: Conversation): ScriptedReply {
  if (macroRequested(c)) {
    return {
      content: `${macroBlock(c.userInput)}\nI will list the project root, read its README and write a short summary to ${NOTES_FILE}.`,
    };
  }
  const chat = chatMode(c);
  const statement = chat
    ? 'I will answer from what the conversation shows, and say where it depends on code I have not seen.'
    : `I will list the project root, read its README and write a short summary to ${NOTES_FILE}.`;
  const block = microBlock({
    observation: `The request: "${oneLine(c.userInput, 100)}".`,
    planDelta: 'none',
    nextAction: chat ? 'answer from the conversation' : "list_dir on '.'",
    knownRisks: 'the request may mean more than its first reading',
    delivery: 'NEEDS_WORK',
  });
  return { content: withReasoning(reasoningRequested(c), block, statement) };
}

/** The demo's answers are complete by construction, so the gate passes them, repeating the answer. */
export function deliveryStep(c: Conversation): ScriptedReply {
  const evidence =
    c.lastAnswer === null
      ? 'No final answer is in this request; the run has handled the request in its earlier steps.'
      : 'A final answer is in the conversation and the tool results back what it claims.';
  const block = microBlock({
    observation: evidence,
    planDelta: 'none',
    nextAction: 'none; the answer stands as written',
    knownRisks: 'only the claims in the answer were checked',
    delivery: 'DONE',
  });
  const visible = c.lastAnswer === null ? 'Delivery: DONE' : `Delivery: DONE\n\n${c.lastAnswer}`;
  return { content: withReasoning(reasoningRequested(c), block, visible) };
}

/** Advisory review: reads the notes once when it can and they are claimed, then reports as JSON. */
export function qaStep(c: Conversation): ScriptedReply {
  const reasoning = reasoningRequested(c);
  const claimsNotes = c.transcript.includes(NOTES_FILE);
  const checked = c.exchanges.find((e) => e.name === 'read_file' && e.args['path'] === NOTES_FILE);
  if (claimsNotes && !checked && c.offered.has('read_file')) {
    const block = microBlock({
      observation: `The answer says ${NOTES_FILE} was written; the file itself is the evidence.`,
      planDelta: 'none',
      nextAction: `read_file ${NOTES_FILE}`,
      knownRisks: 'the notes may differ from what the answer describes',
      delivery: 'NEEDS_WORK',
    });
    return {
      content: withReasoning(reasoning, block, `Checking ${NOTES_FILE}.`),
      toolCalls: [toolCall(c, 0, 'read_file', { path: NOTES_FILE })],
    };
  }
  const confirmed = checked?.result.includes('# Stagecraft notes') ?? false;
  const report =
    checked && !confirmed
      ? {
          verdict: 'concerns',
          summary: `The answer says ${NOTES_FILE} was written, but reading it did not show the notes.`,
          findings: [{ severity: 'major', message: `${NOTES_FILE} does not hold the notes the answer describes.`, file: NOTES_FILE }],
        }
      : {
          verdict: 'pass',
          summary: confirmed
            ? `The answer matches the project: ${NOTES_FILE} holds the summary it describes.`
            : 'The answer is consistent with the conversation; nothing in it claims work that was not done.',
          findings: confirmed
            ? [
                {
                  severity: 'info',
                  message: 'The notes quote the README as it stands; they will need refreshing when it changes.',
                  file: NOTES_FILE,
                },
              ]
            : [],
        };
  const block = microBlock({
    observation: confirmed
      ? `${NOTES_FILE} exists and starts with the notes heading.`
      : 'Checked the answer against the tool results in the conversation.',
    planDelta: 'none',
    nextAction: 'none',
    knownRisks: 'only the files the answer names were checked',
    delivery: report.verdict === 'pass' ? 'DONE' : 'NEEDS_WORK',
  });
  return { content: withReasoning(reasoning, block, JSON.stringify(report, null, 2)) };
}
