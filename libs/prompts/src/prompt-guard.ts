/**
 * Seed 002 §2.1 and §2.2: no prompt may suggest switching mode or leave reasoning to the model.
 * Patterns are phrased to catch the suggestion itself, so prompts must not mention these things at all.
 */
const RULES: ReadonlyArray<{ rule: 'mode_switch' | 'optional_reasoning'; pattern: RegExp }> = [
  { rule: 'mode_switch', pattern: /\bswitch(?:es|ed|ing)?\s+(?:over\s+)?(?:to|into|back\s+to)\s+(?:the\s+)?(?:chat|agent|ask|edit)\s+mode\b/i },
  { rule: 'mode_switch', pattern: /\b(?:switch|change|toggle|flip)(?:es|ed|ing|s)?\s+(?:the\s+|your\s+|conversation\s+)*modes?\b/i },
  { rule: 'mode_switch', pattern: /\b(?:enable|disable|turn\s+on|turn\s+off|activate|use|try)\s+(?:the\s+)?(?:chat|agent)\s+mode\b/i },
  { rule: 'mode_switch', pattern: /\b(?:chat|agent)\s+mode\s+instead\b/i },
  { rule: 'mode_switch', pattern: /\b(?:ask|tell|suggest|recommend)(?:ing|s)?\s+(?:that\s+)?the\s+user\s+(?:to\s+)?(?:enable|disable|turn\s+on|turn\s+off|switch|change|toggle)\b/i },
  { rule: 'optional_reasoning', pattern: /\bif\s+you\s+(?:want|wish|like|prefer|choose|decide|feel\s+like)\s+to\s+(?:reason|think|include\s+(?:your\s+|the\s+)?reasoning)/i },
  { rule: 'optional_reasoning', pattern: /\boptional(?:ly)?[,\s]+(?:include|add|provide|show|write)\s+(?:a\s+|your\s+|the\s+)?(?:reasoning|<ide_reasoning>)/i },
  { rule: 'optional_reasoning', pattern: /\b(?:reasoning|<ide_reasoning>(?:\s+block)?)\s+(?:block\s+)?is\s+optional\b/i },
  { rule: 'optional_reasoning', pattern: /\byou\s+(?:may|can|could|might)\s+(?:skip|omit|leave\s+out|drop)\s+(?:the\s+|your\s+)?(?:reasoning|<ide_reasoning>)/i },
  { rule: 'optional_reasoning', pattern: /\b(?:decide|choose)\s+(?:for\s+yourself\s+)?whether\s+(?:or\s+not\s+)?to\s+(?:reason|include\s+(?:the\s+|your\s+)?reasoning)/i },
  { rule: 'optional_reasoning', pattern: /\breason(?:ing)?\s+only\s+(?:if|when)\s+(?:you|it)\s+(?:think|feel|find|seem)/i },
  { rule: 'optional_reasoning', pattern: /\breasoning\b[^.\n]{0,40}\bat\s+your\s+discretion\b/i },
];

export interface PromptViolation {
  readonly rule: 'mode_switch' | 'optional_reasoning';
  readonly match: string;
  /** Where the match starts in the text. */
  readonly index: number;
}

export function findPromptViolations(text: string): PromptViolation[] {
  return RULES.flatMap(({ rule, pattern }) => {
    const match = pattern.exec(text);
    return match === null ? [] : [{ rule, match: match[0], index: match.index }];
  });
}

/** The 1-based line of `index` in `text`. */
export const lineAt = (text: string, index: number): number => text.slice(0, index).split('\n').length;
