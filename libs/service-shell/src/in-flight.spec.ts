import { createInFlight } from './in-flight';

describe('createInFlight', () => {
  it('settles at once when nothing is in flight', async () => {
    expect(await createInFlight().settle(60_000)).toEqual([]);
  });

  it('waits for work in flight to end, and forgets it then', async () => {
    const inFlight = createInFlight();
    let finish: () => void = () => undefined;
    const work = inFlight.track('tool.execute', new Promise<string>((resolve) => (finish = () => resolve('done'))));
    expect(inFlight.size).toBe(1);
    const settled = inFlight.settle(60_000);
    finish();
    expect(await settled).toEqual([]);
    expect(await work).toBe('done');
    expect(inFlight.size).toBe(0);
  });

  it('counts work that fails as ended, and hands its rejection back unchanged', async () => {
    const inFlight = createInFlight();
    const failing = inFlight.track('policy.decide', Promise.reject(new Error('no')));
    await expect(failing).rejects.toThrow('no');
    expect(await inFlight.settle(60_000)).toEqual([]);
  });

  it('names what is still in flight when the time runs out', async () => {
    const inFlight = createInFlight();
    void inFlight.track('tool.execute', new Promise(() => undefined));
    void inFlight.track('policy.decide', Promise.resolve());
    await Promise.resolve();
    expect(await inFlight.settle(10)).toEqual(['tool.execute']);
  });
});
