import { inputRequired, type CallToolResult, type InputRequiredResult } from '@modelcontextprotocol/server';
import { callTool, type CallToolInput } from './call-tool.ts';
import { RequestStateCodec } from './request-state.ts';
import { EXCHANGE_PREFIX, type UpstreamExchanges } from './upstream-exchanges.ts';

/**
 * A 2026-07-28 client's `tools/call` in a session with upstream connections of its own: the upstream server's
 * sampling, elicitation and roots requests during the call come back to the client as `input_required` rounds
 * (upstream-exchanges.ts), and its retries carry the answers. Approvals (an approval state) go to callTool as before.
 */
export async function exchangedCallTool(
  input: CallToolInput,
  exchanges: UpstreamExchanges,
): Promise<CallToolResult | InputRequiredResult> {
  const { gateway, session, ctx } = input;
  const request = RequestStateCodec.requestHash(input.name, input.arguments);
  const state = ctx.mcpReq.requestState<string>();
  const ref = typeof state === 'string' ? gateway.codec.decode(state) : undefined;
  let exchange;
  if (ref !== undefined && ref.toolCallId.startsWith(EXCHANGE_PREFIX)) {
    if (session.run?.runId !== ref.runId || ref.request !== request)
      return refusal('this answer belongs to another session or another call; call the tool again');
    exchange = exchanges.get(ref.toolCallId);
    if (exchange === undefined)
      return refusal(
        `the call of ${input.name} this answer was for is no longer pending in this gateway process (the client ` +
          'took longer than gateway.approvalTimeoutMs, or another gateway process asked): call the tool again',
      );
    exchanges.answer(exchange, ctx.mcpReq.inputResponses);
  } else {
    const { catalog } = await gateway.catalog(session);
    const server = catalog.visible.get(input.name)?.tool.origin.server;
    exchange = exchanges.start(server, (signal) => callTool({ ...input, signal }));
  }
  const step = await exchanges.step(exchange, ctx.mcpReq.signal);
  if (step.kind === 'done') return step.value;
  const runId = session.run?.runId ?? '';
  return inputRequired({
    inputRequests: step.inputRequests,
    requestState: gateway.codec.encode({ runId, toolCallId: exchange.id, request }),
  });
}

function refusal(message: string): CallToolResult {
  return { content: [{ type: 'text', text: `toolgate: ${message}` }], isError: true };
}
