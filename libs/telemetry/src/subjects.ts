/**
 * A subject as a metric label or span name: tokens that name one instance (a run id, a call id) become
 * `*`, so `stagecraft.run.3f2a….events` and every other run's feed share one label value.
 */
export function subjectLabel(subject: string): string {
  return subject
    .split('.')
    .map((token) => (looksLikeId(token) ? '*' : token))
    .join('.');
}

const looksLikeId = (token: string): boolean => /\d/.test(token) && (token.length >= 8 || /^\d+$/.test(token));
