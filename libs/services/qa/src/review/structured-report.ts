import { z } from 'zod';
import { QAFinding, QAReport } from '@stagecraft/contracts';
import type { ModelResponse, StructuredOutput } from '@stagecraft/model-gateway';

/**
 * The report in a shape strict structured output can hold (0059): every field required, `file` null
 * where the finding names no place. Read back, it is checked again by the report's own parse.
 */
const StrictReport = z.object({
  verdict: QAReport.shape.verdict,
  summary: z.string(),
  findings: z.array(z.object({ severity: QAFinding.shape.severity, message: z.string(), file: z.string().nullable() })),
});

// Strict JSON cannot carry a reasoning block as text around it, so the block is a field of its own.
const WithReasoning = z.object({
  reasoning: z
    .string()
    .describe('The review\'s reasoning block in the micro format, tags included: "<ide_reasoning>\\n- ...\\n</ide_reasoning>".'),
  report: StrictReport,
});

const withoutReasoning: StructuredOutput = { name: 'qa_report', schema: StrictReport };
const withReasoning: StructuredOutput = { name: 'qa_report_with_reasoning', schema: WithReasoning };

export const reportFormat = (reasoningEnabled: boolean): StructuredOutput => (reasoningEnabled ? withReasoning : withoutReasoning);

/**
 * The reviewer's final reply as the text today's parse reads: the reasoning block, then the report in a
 * fence. A structured reply is rewritten so; any other reply (refused, off, or not matching the schema:
 * some endpoints accept the format and ignore it) is returned as it came, for the fenced-block parse.
 */
export function reportText(
  response: Pick<ModelResponse, 'content' | 'structured'>,
  reasoningEnabled: boolean,
): { text: string; read: 'structured' | 'text' } {
  const fallback = { text: response.content, read: 'text' as const };
  if (response.structured !== 'json_schema') return fallback;
  let value: unknown;
  try {
    value = JSON.parse(response.content);
  } catch {
    return fallback;
  }
  const parsed = (reasoningEnabled ? WithReasoning : z.object({ reasoning: z.string().optional(), report: StrictReport })).safeParse(
    reasoningEnabled ? value : { report: value },
  );
  if (!parsed.success) return fallback;
  const { reasoning, report } = parsed.data;
  const findings = report.findings.map(({ file, ...finding }) => (file === null ? finding : { ...finding, file }));
  const json = `\`\`\`json\n${JSON.stringify({ ...report, findings })}\n\`\`\``;
  return { text: reasoning ? `${reasoning.trim()}\n\n${json}` : json, read: 'structured' };
}
