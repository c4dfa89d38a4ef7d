import { type EventReader, type Position, pagesAfter } from '@stagecraft/event-store';
import { ConsoleView, consoleViewModel } from './console-view';

/** The console view and the log position it reflects. */
export interface ViewAt {
  view: ConsoleView;
  position: bigint;
}

/**
 * The console view kept in memory and brought up to the end of the log before each read: the first read
 * folds the whole log (only the event types the view reads), later ones only what was appended since.
 * Reads are serialized, so two requests never fold the same events twice.
 */
export function consoleViewReader(log: EventReader): { current(): Promise<ViewAt> } {
  let state: ViewAt = { view: consoleViewModel.initialState(), position: 0n };
  let from: Position | 'start' = 'start';
  let queue: Promise<ViewAt> = Promise.resolve(state);
  const catchUp = async (): Promise<ViewAt> => {
    for await (const { events } of pagesAfter(log, from, consoleViewModel.handles)) {
      for (const event of events) state.view = consoleViewModel.evolve(state.view, event);
      if (events.length > 0) {
        from = events[events.length - 1].position;
        state = { view: state.view, position: from };
      }
    }
    return state;
  };
  return {
    current() {
      queue = queue.then(catchUp, catchUp);
      return queue;
    },
  };
}
