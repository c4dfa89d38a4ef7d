const OPEN = /<\s*ide_reasoning\s*>/i;
const ANY_TAG = /<\s*\/?\s*ide_reasoning\s*>/gi;
/** Not global, so `test` keeps no position between calls. */
const SOME_TAG = /<\s*\/?\s*ide_reasoning\s*>/i;

export interface ReasoningBlock {
  /** The full text from the opening tag to the end of the closing tag (or of the text). */
  text: string;
  /** Between the tags. */
  body: string;
  start: number;
  end: number;
  terminated: boolean;
}

/**
 * Every `<ide_reasoning>` block in order. An opening tag without a closing one runs to the end of the
 * text. A closing tag with no opening tag before it is not a block; `strayTags` still finds it.
 */
export function findBlocks(text: string): ReasoningBlock[] {
  const blocks: ReasoningBlock[] = [];
  const tags = Array.from(text.matchAll(ANY_TAG));
  let open: RegExpMatchArray | null = null;
  for (const tag of tags) {
    const isOpen = OPEN.test(tag[0]);
    if (open === null && isOpen) open = tag;
    else if (open !== null && !isOpen) {
      const start = open.index ?? 0;
      const end = (tag.index ?? 0) + tag[0].length;
      blocks.push({ text: text.slice(start, end), body: text.slice(start + open[0].length, tag.index), start, end, terminated: true });
      open = null;
    }
  }
  if (open !== null) {
    const start = open.index ?? 0;
    blocks.push({ text: text.slice(start), body: text.slice(start + open[0].length), start, end: text.length, terminated: false });
  }
  return blocks;
}

/** True when the text holds any reasoning tag at all, opening or closing. */
export function containsReasoning(text: string): boolean {
  return SOME_TAG.test(text);
}

/**
 * The text a later request may carry: every block removed (an unterminated one up to the end), stray
 * tags too, and the whitespace left where a block was folded into one paragraph break.
 */
export function stripReasoning(text: string): string {
  // Removing one tag can join the text around it into another (`<ide_</ide_reasoning>reasoning>`): strip until none is left.
  let stripped = stripOnce(text);
  while (containsReasoning(stripped)) stripped = stripOnce(stripped);
  return stripped;
}

function stripOnce(text: string): string {
  const parts: string[] = [];
  let from = 0;
  for (const block of findBlocks(text)) {
    parts.push(text.slice(from, block.start));
    from = block.end;
  }
  parts.push(text.slice(from));
  return parts
    .map((part) => part.replace(ANY_TAG, '').trim())
    .filter((part) => part.length > 0)
    .join('\n\n');
}
