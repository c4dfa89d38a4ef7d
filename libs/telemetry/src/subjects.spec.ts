import { subjectLabel } from './subjects';

describe('subjectLabel', () => {
  it('keeps the subjects of requests as they are', () => {
    expect(subjectLabel('stagecraft.conversation.send')).toBe('stagecraft.conversation.send');
    expect(subjectLabel('memory.reasoning-outcome.get')).toBe('memory.reasoning-outcome.get');
  });

  it('replaces the tokens that name one run or call, so label values stay few', () => {
    expect(subjectLabel('stagecraft.run.3f2a9c1e-55aa-4c1b-9e7d-0a1b2c3d4e5f.events')).toBe('stagecraft.run.*.events');
    expect(subjectLabel('stagecraft.tool.call_0001abcd.progress')).toBe('stagecraft.tool.*.progress');
    expect(subjectLabel('stagecraft.run.42.events')).toBe('stagecraft.run.*.events');
  });
});
