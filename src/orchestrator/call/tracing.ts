import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  context,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import {
  describeError,
  type GenerateOptions,
  type ModelAdapter,
  type ModelRequest,
  type ModelResponse,
  type Run,
  type RunSettings,
} from '../../core/index.ts';

/**
 * OpenTelemetry traces through `@opentelemetry/api`: a no-op unless the
 * application installs an SDK. Spans follow the GenAI semantic conventions:
 * `invoke_agent toolgate` for each pass over a run, `chat <model>` for each
 * model call, `execute_tool <tool>` for each tool call, with the gate's
 * decision as attributes. A run created with a W3C traceparent continues
 * that trace, in every pass and every process that drives it.
 */
const TRACER_NAME = 'toolgate';

/** A W3C traceparent: version 00, a trace id and a span id that are not all zeros, flags. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The traceparent, when it is well-formed (lower-case hex, ids not all zero); undefined otherwise. */
export function checkTraceparent(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const m = TRACEPARENT.exec(value.trim());
  if (m === null || /^0+$/.test(m[1] ?? '') || /^0+$/.test(m[2] ?? '')) return undefined;
  return value.trim();
}

/** The traceparent of the span active now (a library caller's), if there is a recording one. */
export function activeTraceparent(): string | undefined {
  const span = trace.getActiveSpan();
  return span === undefined ? undefined : traceparentOf(span);
}

/** `00-<trace id>-<span id>-<flags>` of a span, when its context is valid. */
export function traceparentOf(span: Span): string | undefined {
  const ctx = span.spanContext();
  if (!trace.isSpanContextValid(ctx)) return undefined;
  return (
    `00-${ctx.traceId}-${ctx.spanId}-` + `${(ctx.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED ? '01' : '00'}`
  );
}

/** The context a run's spans descend from: its stored traceparent, or nothing. */
function parentContext(traceparent: string | undefined): Context {
  const m = traceparent === undefined ? null : TRACEPARENT.exec(traceparent);
  if (m === null) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: m[1] ?? '',
    spanId: m[2] ?? '',
    traceFlags: Number.parseInt(m[3] ?? '0', 16),
    isRemote: true,
  });
}

/** One pass over a run: the parent of its model and tool spans. */
export interface PassTrace {
  context: Context;
  /** What tool calls put in MCP `_meta.traceparent`: their own span's, or the run's traceparent without an SDK. */
  traceparent: string | undefined;
  /**
   * Whether the pass span records (an SDK is installed and sampled it). When it
   * does not, its model and tool spans would not either (samplers follow the
   * parent): they are not made, and their attributes not built, on a path taken
   * at every step. The pass's context is still made active around model calls.
   */
  recording: boolean;
  end(outcome: { status: string; error?: { code: string; message: string } | undefined }): void;
}

/** What a pass's span reads of its run (a gateway session names no strategy). */
export type TracedRun = Pick<Run, 'id' | 'model'> &
  Partial<Pick<Run, 'threadId' | 'tenantId'>> & {
    settings?: Partial<Pick<RunSettings, 'traceparent' | 'strategy'>> | undefined;
  };

export function startPassSpan(run: TracedRun): PassTrace {
  const tracer = trace.getTracer(TRACER_NAME);
  const stored = run.settings?.traceparent;
  const span = tracer.startSpan(
    'invoke_agent toolgate',
    {
      kind: SpanKind.INTERNAL,
      attributes: clean({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'toolgate',
        'gen_ai.request.model': run.model,
        'gen_ai.conversation.id': run.threadId,
        'toolgate.run.id': run.id,
        'toolgate.run.strategy': run.settings?.strategy,
        'toolgate.tenant.id': run.tenantId,
      }),
    },
    parentContext(stored),
  );
  return {
    context: trace.setSpan(ROOT_CONTEXT, span),
    traceparent: traceparentOf(span) ?? stored,
    recording: span.isRecording(),
    end: ({ status, error }) => {
      span.setAttribute('toolgate.run.status', status);
      if (error !== undefined) {
        span.setAttribute('error.type', error.code);
        span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
      }
      span.end();
    },
  };
}

/** The model adapter, each generate() a `chat <model>` span under the pass. */
export function tracedModel(model: ModelAdapter, pass: PassTrace): ModelAdapter {
  const [provider, ...rest] = model.id.split(':');
  const name = rest.join(':') || model.id;
  return {
    ...model,
    id: model.id,
    generate: (request: ModelRequest, options?: GenerateOptions): Promise<ModelResponse> => {
      if (pass.recording) return tracedGenerate(request, options);
      // Not recording: the model's own promise, with the pass's context active (no span, no promise of ours);
      // an adapter that throws instead of rejecting still rejects.
      try {
        return context.with(pass.context, () => model.generate(request, options));
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };

  async function tracedGenerate(request: ModelRequest, options?: GenerateOptions): Promise<ModelResponse> {
    const span = trace.getTracer(TRACER_NAME).startSpan(
      `chat ${name}`,
      {
        kind: SpanKind.CLIENT,
        attributes: clean({
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': provider,
          'gen_ai.request.model': name,
          'toolgate.model.call_index': request.callIndex,
          'toolgate.tools.offered': request.tools.length,
        }),
      },
      pass.context,
    );
    try {
      const response = await context.with(trace.setSpan(pass.context, span), () => model.generate(request, options));
      span.setAttributes(
        clean({
          'gen_ai.response.finish_reasons': [response.finishReason],
          'gen_ai.usage.input_tokens': response.usage?.promptTokens,
          'gen_ai.usage.output_tokens': response.usage?.completionTokens,
          // The counts above are toolgate's tokenizer's when the provider did not report them.
          'toolgate.usage.estimated': response.usage?.estimated,
          'toolgate.tool_calls': response.toolCalls.length,
        }),
      );
      return response;
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  }
}

/** A tool call's span, ended by the caller with what the gate decided and what came back. */
export interface ToolTrace {
  /** What goes in MCP `_meta.traceparent`. */
  traceparent: string | undefined;
  decided(decision: string, effect: string): void;
  end(result: { ok: boolean; error?: { code: string; message: string } | undefined }): void;
}

export function startToolSpan(
  pass: PassTrace | undefined,
  call: { id: string; name: string },
  step: number,
): ToolTrace {
  if (pass === undefined) return { traceparent: undefined, decided: () => undefined, end: () => undefined };
  if (!pass.recording) return { traceparent: pass.traceparent, decided: () => undefined, end: () => undefined };
  const span = trace.getTracer(TRACER_NAME).startSpan(
    `execute_tool ${call.name}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': call.name,
        'gen_ai.tool.call.id': call.id,
        'gen_ai.tool.type': 'function',
        'toolgate.step': step,
      },
    },
    pass.context,
  );
  return {
    traceparent: traceparentOf(span) ?? pass.traceparent,
    decided: (decision, effect) =>
      span.setAttributes({ 'toolgate.gate.decision': decision, 'toolgate.tool.effect': effect }),
    end: ({ ok, error }) => {
      if (!ok && error !== undefined) {
        span.setAttribute('error.type', error.code);
        span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
      }
      span.end();
    },
  };
}

function failed(span: Span, error: unknown): void {
  const code =
    typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
      ? error.code
      : 'error';
  span.setAttribute('error.type', code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: describeError(error) });
}

/** Attributes without the undefined ones (OpenTelemetry drops them, with a warning). */
function clean(attributes: Record<string, string | number | boolean | string[] | undefined>): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value;
  return out;
}
