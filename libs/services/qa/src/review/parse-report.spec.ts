import { parseQaReport } from './parse-report';

const report = {
  verdict: 'pass',
  summary: 'The README was added as asked.',
  findings: [{ severity: 'info', message: 'Consider a usage example.' }],
};
const micro = [
  '<ide_reasoning>',
  '- Read README.md; it matches the answer.',
  '- Plan delta: none',
  '- Next action: none',
  '- Known risks: did not run the build.',
  '- Delivery: DONE',
  '</ide_reasoning>',
].join('\n');

describe('parseQaReport', () => {
  it('reads a bare JSON report', () => {
    expect(parseQaReport(JSON.stringify(report), false)).toEqual(report);
  });

  it('reads a report inside a json fence, with text around it', () => {
    const text = `Here is my review.\n\n\`\`\`json\n${JSON.stringify(report, null, 2)}\n\`\`\`\nThanks.`;
    expect(parseQaReport(text, false)).toEqual(report);
  });

  it('defaults missing findings to none and drops fields the report does not have', () => {
    const text = JSON.stringify({ verdict: 'pass', summary: 'Fine.', correctedAnswer: 'a rewrite' });
    expect(parseQaReport(text, false)).toEqual({ verdict: 'pass', summary: 'Fine.', findings: [] });
  });

  it('turns pass into concerns when a finding is major or critical', () => {
    const text = JSON.stringify({ ...report, findings: [{ severity: 'critical', message: 'The build is broken.', file: 'src/a.ts:3' }] });
    expect(parseQaReport(text, false).verdict).toBe('concerns');
  });

  it('takes the micro reasoning off and keeps its outcome when reasoning is on', () => {
    const parsed = parseQaReport(`${micro}\n${JSON.stringify(report)}`, true);
    expect(parsed).toMatchObject(report);
    expect(parsed.reasoningOutcome).toEqual({
      plan_delta: 'none',
      next_action: 'none',
      known_risks: 'did not run the build.',
      delivery_state: 'DONE',
      notes: ['Read README.md; it matches the answer.'],
    });
  });

  it('still reads the report when the reasoning block is missing or broken, without an outcome', () => {
    expect(parseQaReport(JSON.stringify(report), true)).toEqual(report);
    expect(parseQaReport(`<ide_reasoning>\n- only one bullet\n</ide_reasoning>\n${JSON.stringify(report)}`, true)).toEqual(report);
  });

  it('ignores a reasoning block when reasoning is off, rather than parsing JSON out of it', () => {
    expect(parseQaReport(`<ide_reasoning>\n- {"verdict": "concerns"}\n</ide_reasoning>\n${JSON.stringify(report)}`, false)).toEqual(report);
  });

  it.each([
    ['', 'the reviewer returned no text'],
    ['Looks good to me!', 'no JSON object found'],
    ['{"verdict": "pass", "summary": }', 'invalid JSON'],
    ['{"verdict": "great", "summary": "x", "findings": []}', 'verdict'],
    ['{"verdict": "pass", "summary": "x", "findings": [{"severity": "minor", "message": ""}]}', 'findings.0.message'],
  ])('makes %j a concerns report that says why', (text, why) => {
    const parsed = parseQaReport(text, false);
    expect(parsed).toEqual({ verdict: 'concerns', summary: expect.stringContaining('QA report could not be parsed: '), findings: [] });
    expect(parsed.summary).toContain(why);
  });
});
