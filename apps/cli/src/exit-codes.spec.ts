import { EXIT, exitCodeOfError, exitCodeOfRun } from './exit-codes';

describe('exit codes', () => {
  it('tell a followed run’s end apart', () => {
    const run = { waiting: null, failed: false, deliveryState: 'DONE' };
    expect(exitCodeOfRun(run)).toBe(EXIT.done);
    expect(exitCodeOfRun({ ...run, deliveryState: null })).toBe(EXIT.done);
    expect(exitCodeOfRun({ ...run, deliveryState: 'NEEDS_WORK' })).toBe(EXIT.failed);
    expect(exitCodeOfRun({ ...run, failed: true, failureCode: 'MODEL_FORMAT' })).toBe(EXIT.failed);
    expect(exitCodeOfRun({ ...run, failed: true, failureCode: 'UNAVAILABLE' })).toBe(EXIT.unreachable);
    expect(exitCodeOfRun({ ...run, waiting: { approvalId: 'a' } })).toBe(EXIT.waiting);
  });

  it('map a thrown error by its code', () => {
    expect(exitCodeOfError({ code: 'VALIDATION' })).toBe(EXIT.usage);
    expect(exitCodeOfError({ code: 'CONFIGURATION' })).toBe(EXIT.usage);
    expect(exitCodeOfError({ code: 'UNAVAILABLE' })).toBe(EXIT.unreachable);
    expect(exitCodeOfError({ code: 'TIMEOUT' })).toBe(EXIT.unreachable);
    expect(exitCodeOfError({ code: 'INTERNAL' })).toBe(EXIT.failed);
    // A damaged store is neither "try again later" nor "a check found a difference".
    expect(exitCodeOfError({ code: 'CORRUPT' })).toBe(5);
  });

  it('keep waiting apart from unreachable', () => {
    expect(new Set(Object.values(EXIT)).size).toBe(Object.keys(EXIT).length);
  });
});
