import { findDeepSeekCalls } from './deepseek.ts';
import type { Envelope } from './envelope.ts';
import { findLlamaCalls } from './llama.ts';
import { findMistralCalls } from './mistral.ts';

/** Finders of the special-token families (Mistral, Llama python_tag, DeepSeek). */
export const TOKEN_FINDERS: readonly ((text: string) => Envelope[])[] = [findMistralCalls, findLlamaCalls, findDeepSeekCalls];

/** Text that starts a call in one of these families: the stream filter holds the rest of the turn from there. */
export const TOKEN_STREAM_MARKERS: readonly string[] = [
  '<|python_tag|>',
  '<｜tool▁calls▁begin｜>',
  '<｜tool▁call▁begin｜>',
  '<|tool▁calls▁begin|>',
  '<|tool▁call▁begin|>',
  '[TOOL_CALLS]',
];
