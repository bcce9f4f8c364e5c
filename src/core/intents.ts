/** The kinds of request the auto router tells apart: eval results and live statistics are kept per kind. */
export const INTENTS = ['answer', 'lookup', 'change'] as const;
export type Intent = (typeof INTENTS)[number];

/** The kind of request each route serves (a lookup may be answered by ReAct with or without reflection). */
export const INTENT_OF_ROUTE: Readonly<Record<'answer' | 'react' | 'plan' | 'reflect', Intent>> = {
  answer: 'answer',
  react: 'lookup',
  reflect: 'lookup',
  plan: 'change',
};
