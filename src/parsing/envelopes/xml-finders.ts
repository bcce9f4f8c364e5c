import type { Envelope } from './envelope.ts';
import { findFunctionTags } from './function-tag.ts';
import { findMinimaxCalls } from './minimax.ts';
import { findToolCallTags } from './tool-call-tag.ts';

/** Finders of the tag families (Hermes/Qwen, Qwen3-Coder, GLM, MiniMax, Llama function tags). */
export const XML_FINDERS: readonly ((text: string) => Envelope[])[] = [findToolCallTags, findFunctionTags, findMinimaxCalls];

/** Text that starts a call in one of these families: the stream filter holds the rest of the turn from there. */
export const XML_STREAM_MARKERS: readonly string[] = ['<tool_call>', '<tool_calls>', '<|tool_call|>', '<function=', '<minimax:tool_call>'];
