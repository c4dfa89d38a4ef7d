import { deliveryStatement, oneLine, parseDeliveryState } from './delivery';

describe('parseDeliveryState', () => {
  it.each([
    ['DONE', 'DONE'],
    [' done.', 'DONE'],
    ['"Done"', 'DONE'],
    ['NEEDS_WORK', 'NEEDS_WORK'],
    ['needs work: tests', 'NEEDS_WORK'],
    ['`needs-work`', 'NEEDS_WORK'],
    ['doneish', null],
    ['not done', null],
    ['', null],
  ])('%p → %p', (value, state) => {
    expect(parseDeliveryState(value)).toBe(state);
  });
});

describe('oneLine', () => {
  it.each([
    ['a single line is kept as written', '1) read;  2) write', '1) read; 2) write'],
    ['a list loses its markers', '- read\n* write\n3. test', 'read; write; test'],
    [
      'punctuated lines are not separated twice',
      'The file may be stale.\nTests may be red;\nor missing',
      'The file may be stale. Tests may be red; or missing',
    ],
    ['blank lines vanish', '\n\nfirst\n\n\nsecond\n', 'first; second'],
    ['empty stays empty', '  \n ', ''],
  ])('%s', (_name, text, expected) => {
    expect(oneLine(text)).toBe(expected);
  });
});

describe('deliveryStatement', () => {
  it.each([
    ['Delivery: DONE', 'DONE'],
    ['All four hold.\n- **Delivery:** needs work\n- tests missing', 'NEEDS_WORK'],
    ['delivery: `DONE`', 'DONE'],
  ])('reads the Delivery line of %j', (text, state) => {
    expect(deliveryStatement(text)).toBe(state);
  });

  it.each(['The work is DONE.', 'Delivery was discussed.', 'Delivery: maybe later'])('finds no verdict in %j', (text) => {
    expect(deliveryStatement(text)).toBeNull();
  });
});
