import { z } from 'zod';
import { QAFinding, QAReport } from '@stagecraft/contracts';
import type { ReasoningOutcome } from '@stagecraft/contracts';
import { parseReasoning, stripReasoning } from '@stagecraft/reasoning';

/** What the reviewer writes; anything else it adds (a rewritten answer, say) is dropped by the parse. */
const ReportBody = z.object({
  verdict: QAReport.shape.verdict,
  summary: z.string(),
  findings: z.array(QAFinding).default([]),
});

const FENCED = /```(?:json)?\s*\n?([\s\S]*?)```/i;

/** The JSON object in the text: inside a fence if there is one, else from the first `{` to the last `}`. */
function extractJson(text: string): string | null {
  const fenced = FENCED.exec(text);
  if (fenced) return fenced[1].trim();
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  return start >= 0 && end > start ? text.slice(start, end + 1) : null;
}

function parseBody(text: string): { ok: true; body: z.infer<typeof ReportBody> } | { ok: false; problem: string } {
  const json = extractJson(text);
  if (json === null) return { ok: false, problem: text.trim() === '' ? 'the reviewer returned no text' : 'no JSON object found' };
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    return { ok: false, problem: `invalid JSON (${(error as Error).message})` };
  }
  const parsed = ReportBody.safeParse(value);
  if (!parsed.success)
    return { ok: false, problem: parsed.error.issues.map((i) => `${i.path.join('.') || '(report)'}: ${i.message}`).join('; ') };
  return { ok: true, body: parsed.data };
}

export const unparsedReport = (problem: string): QAReport => ({
  verdict: 'concerns',
  summary: `QA report could not be parsed: ${problem}`,
  findings: [],
});

/**
 * Reads the reviewer's final message into a report. It never throws: QA is advisory, so a report that
 * cannot be read becomes a `concerns` report saying why, and the run goes on. With reasoning on, the
 * micro block is taken off first and its outcome kept beside the report.
 */
export function parseQaReport(content: string, reasoningEnabled: boolean): QAReport {
  let text = stripReasoning(content);
  let reasoningOutcome: ReasoningOutcome | undefined;
  if (reasoningEnabled) {
    const reasoning = parseReasoning(content, 'micro');
    text = reasoning.visible;
    if (reasoning.ok) reasoningOutcome = reasoning.outcome;
  }
  const parsed = parseBody(text);
  const report: QAReport = parsed.ok ? withConsistentVerdict(parsed.body) : unparsedReport(parsed.problem);
  return reasoningOutcome ? { ...report, reasoningOutcome } : report;
}

/** The report schema's own rule: a major or critical finding means `concerns`, whatever the reviewer wrote. */
function withConsistentVerdict(body: z.infer<typeof ReportBody>): QAReport {
  const serious = body.findings.some((f) => f.severity === 'major' || f.severity === 'critical');
  return serious ? { ...body, verdict: 'concerns' } : body;
}

/** The reviewer kept leaving out the reasoning it was asked for: the report says so, as a finding the user sees. */
export const withReasoningFailure = (report: QAReport, problem: string): QAReport => ({
  ...report,
  findings: [...report.findings, { severity: 'info', message: `The reviewer gave no valid reasoning after a correction (${problem}).` }],
});
