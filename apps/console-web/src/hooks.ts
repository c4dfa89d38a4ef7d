import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * Data loaded by `load`, again whenever `keys` change or `reload()` is called; a reload asked for while one
 * is in flight runs once after it, so a burst of live events costs at most two requests.
 */
export function useLoad<T>(load: () => Promise<T>, keys: unknown[]): { value: T | undefined; error: unknown; reload: () => void } {
  const [state, setState] = useState<{ value: T | undefined; error: unknown }>({ value: undefined, error: undefined });
  const flight = useRef<{ running: boolean; again: boolean; generation: number }>({ running: false, again: false, generation: 0 });
  const loader = useRef(load);
  loader.current = load;
  const run = useRef<() => void>(() => undefined);
  run.current = () => {
    const f = flight.current;
    if (f.running) {
      f.again = true;
      return;
    }
    f.running = true;
    const generation = f.generation;
    loader
      .current()
      .then(
        (value) => generation === f.generation && setState({ value, error: undefined }),
        (error: unknown) => generation === f.generation && setState((s) => ({ value: s.value, error })),
      )
      .finally(() => {
        f.running = false;
        if (f.again) {
          f.again = false;
          run.current();
        }
      });
  };
  useEffect(() => {
    flight.current = { running: false, again: false, generation: flight.current.generation + 1 };
    setState({ value: undefined, error: undefined });
    run.current();
  }, keys);
  return { ...state, reload: () => run.current() };
}
