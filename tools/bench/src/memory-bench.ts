/**
 * The recall benchmark's own project memory and question set (docs/decisions/0058): eight runs of a
 * small web shop, oldest first, three of them running build or test commands, five architecture notes,
 * and questions of three kinds, each with the memories that answer it.
 */

export interface BenchRun {
  /** The run id suffix; its outcome memory is `o-<n>`. */
  n: number;
  userInput: string;
  answer: string;
  /** `run_command` calls that passed in the run. */
  commands: { command: string; args: string[] }[];
}

export const BENCH_RUNS: readonly BenchRun[] = [
  {
    n: 1,
    userInput: 'Fix the login form validation',
    answer: 'Fixed the email check in src/auth/login-form.ts; empty passwords are refused.',
    commands: [],
  },
  {
    n: 2,
    userInput: 'Add pagination to the orders list',
    answer: 'The orders list pages by 20 with next and previous links.',
    commands: [],
  },
  {
    n: 3,
    userInput: 'Add a NOTES.md that summarises README.md',
    answer: 'Added NOTES.md: what the shop does, how to run it, where the code lives.',
    commands: [{ command: 'npm', args: ['test'] }],
  },
  {
    n: 4,
    userInput: 'Upgrade the SQLite driver',
    answer: 'Moved better-sqlite3 to 11.x; the migrations still pass.',
    commands: [{ command: 'npm', args: ['run', 'build'] }],
  },
  {
    n: 5,
    userInput: 'Make the checkout emails use the new template',
    answer: 'Checkout confirmation mail renders templates/checkout.mjml.',
    commands: [],
  },
  {
    n: 6,
    userInput: 'Rename the config loader to loadSettings',
    answer: 'Renamed loadConfig to loadSettings across 7 files.',
    commands: [],
  },
  {
    n: 7,
    userInput: 'Speed up the product search',
    answer: 'Search uses a trigram index; p95 went from 900 ms to 120 ms.',
    commands: [{ command: 'npm', args: ['run', 'test:unit'] }],
  },
  {
    n: 8,
    userInput: 'Translate the error messages into German',
    answer: 'Error messages are in src/i18n/de.json; the locale follows Accept-Language.',
    commands: [],
  },
];

/** What a model retains with `memory_retain`, tier `architecture`, with its tags. */
export const BENCH_NOTES: readonly { id: string; content: string; tags: string[] }[] = [
  {
    id: 'a-store',
    content: 'Orders and users are kept in SQLite through better-sqlite3; migrations live in db/migrations.',
    tags: ['database'],
  },
  { id: 'a-auth', content: 'Sessions are signed cookies; the secret comes from SHOP_SESSION_SECRET.', tags: ['auth'] },
  { id: 'a-mail', content: 'Mail goes out through the SMTP relay configured in config/mail.json.', tags: ['email'] },
  { id: 'a-front', content: 'The front end is React with Vite; pages live in src/pages.', tags: ['frontend'] },
  { id: 'a-deploy', content: 'Deployed as one container to Fly.io by the deploy.yml workflow.', tags: ['deploy'] },
];

export type QuestionKind = 'recency' | 'lexical' | 'paraphrase';

/** A question and the memories that answer it: `o-<n>` (run n's outcome), `f-<command line>` (a project fact), or a note's id. */
export interface BenchQuestion {
  kind: QuestionKind;
  text: string;
  relevant: string[];
}

export const BENCH_QUESTIONS: readonly BenchQuestion[] = [
  { kind: 'recency', text: 'What changed in this project lately?', relevant: ['o-8'] },
  { kind: 'recency', text: 'What did we do last time?', relevant: ['o-8'] },
  { kind: 'recency', text: 'Catch me up: what happened recently?', relevant: ['o-8'] },
  { kind: 'recency', text: 'What was the most recent change?', relevant: ['o-8'] },
  { kind: 'recency', text: 'What were the last two things we worked on?', relevant: ['o-8', 'o-7'] },
  { kind: 'recency', text: 'Anything new since my last visit?', relevant: ['o-8'] },
  { kind: 'recency', text: 'Summarise the latest work.', relevant: ['o-8'] },
  { kind: 'recency', text: 'What did the previous run do?', relevant: ['o-8'] },
  { kind: 'lexical', text: 'How do I run the tests?', relevant: ['f-npm test'] },
  { kind: 'lexical', text: 'Which command builds the code?', relevant: ['f-npm run build'] },
  { kind: 'lexical', text: 'How do I run only the unit tests?', relevant: ['f-npm run test:unit'] },
  { kind: 'lexical', text: 'Where do the database migrations live?', relevant: ['a-store'] },
  { kind: 'lexical', text: 'How are sessions signed?', relevant: ['a-auth'] },
  { kind: 'lexical', text: 'Where is the SMTP relay configured?', relevant: ['a-mail'] },
  { kind: 'lexical', text: 'Did we add NOTES.md?', relevant: ['o-3'] },
  { kind: 'lexical', text: 'What happened with the login form?', relevant: ['o-1'] },
  { kind: 'lexical', text: 'How does the orders list paginate?', relevant: ['o-2'] },
  { kind: 'lexical', text: 'Which template do checkout emails use?', relevant: ['o-5'] },
  { kind: 'lexical', text: 'What is the new name of the config loader?', relevant: ['o-6'] },
  { kind: 'lexical', text: 'How fast is product search now?', relevant: ['o-7'] },
  { kind: 'lexical', text: 'Which version of better-sqlite3 do we use?', relevant: ['o-4', 'a-store'] },
  { kind: 'paraphrase', text: 'Which cloud provider hosts the app?', relevant: ['a-deploy'] },
  { kind: 'paraphrase', text: 'Who sends receipts after a purchase?', relevant: ['a-mail'] },
  { kind: 'paraphrase', text: 'What framework draws the user interface?', relevant: ['a-front'] },
  { kind: 'paraphrase', text: 'Which library talks to the DB?', relevant: ['a-store'] },
];

/** Share of a question's relevant memories among the first `k` answered. */
export function recallAt(k: number, relevant: readonly string[], answered: readonly string[]): number {
  const top = new Set(answered.slice(0, k));
  return relevant.filter((id) => top.has(id)).length / relevant.length;
}

/** Mean recall@k over questions, overall and per kind. */
export function scoreRanking(
  k: number,
  questions: readonly BenchQuestion[],
  answers: readonly (readonly string[])[],
): { all: number } & Record<QuestionKind, number> {
  const mean = (kind?: QuestionKind) => {
    const scores = questions.flatMap((q, i) => (kind === undefined || q.kind === kind ? [recallAt(k, q.relevant, answers[i])] : []));
    return scores.length === 0 ? 0 : Number((scores.reduce((a, b) => a + b, 0) / scores.length).toFixed(3));
  };
  return { all: mean(), recency: mean('recency'), lexical: mean('lexical'), paraphrase: mean('paraphrase') };
}
