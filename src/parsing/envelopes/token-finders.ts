import { findDeepSeekCalls } from './deepseek.ts';
import type { Envelope } from './envelope.ts';
import { findGemmaCalls } from './gemma.ts';
import { findHarmonyCalls } from './harmony.ts';
import { findKimiCalls } from './kimi.ts';
import { findLlamaCalls } from './llama.ts';
import { findMinimaxTextCalls } from './minimax-text.ts';
import { findMistralCalls } from './mistral.ts';
import { TOKEN_FAMILIES } from './token-families.ts';

/**
 * Finders of the special-token families (Mistral, Llama python_tag, DeepSeek, Kimi, Harmony, Gemma fences, MiniMax
 * text).
 */
export const TOKEN_FINDERS: readonly ((text: string) => Envelope[])[] = [
  findMistralCalls,
  findLlamaCalls,
  findDeepSeekCalls,
  findKimiCalls,
  findHarmonyCalls,
  findGemmaCalls,
  findMinimaxTextCalls,
];

const D = TOKEN_FAMILIES.deepseek;
const K = TOKEN_FAMILIES.kimi;
const H = TOKEN_FAMILIES.harmony;
const M = TOKEN_FAMILIES.mistral;

/** DeepSeek's token with ASCII bars, as some detokenisers write it. */
const asciiBars = (token: string): string => token.replaceAll('｜', '|');

/**
 * Text that starts a call in one of these families: the stream filter holds
 * the rest of the turn from there. Inner markers are listed too, since a call
 * may come without its outer opener. (Gemma's ```tool_code is a fence, held
 * as one; a Mistral call whose [TOOL_CALLS] was eaten starts with its name,
 * before any marker.)
 */
export const TOKEN_STREAM_MARKERS: readonly string[] = [
  TOKEN_FAMILIES.llama.pythonTag,
  TOKEN_FAMILIES.llama.pythonStart,
  D.callsBegin,
  D.callBegin,
  asciiBars(D.callsBegin),
  asciiBars(D.callBegin),
  M.toolCalls,
  M.args,
  M.callId,
  K.sectionBegin,
  K.sectionBeginSingular,
  K.callBegin,
  K.argumentBegin,
  // A Harmony call is read back from its <|message|> to its header, which may start at either
  // token: the rest of a Harmony turn is held (its final text is shown when the turn ends).
  H.start,
  H.channel,
  TOKEN_FAMILIES.minimaxText.open,
];
