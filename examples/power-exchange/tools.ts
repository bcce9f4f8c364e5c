import { McpServer } from '@modelcontextprotocol/server';
import type { ServerContext } from '@modelcontextprotocol/server';
import type * as z from 'zod';
import type { JsonObject } from '../../src/core/json.ts';
import type { ToolAnnotations } from '../../src/core/tools.ts';
import {
  DEFAULT_INITIAL_CASH_EUR,
  DEFAULT_INITIAL_ENERGY_MWH,
  DEFAULT_SYMBOL,
  DEFAULT_SYMBOLS,
} from './domain/exchange.ts';
import type { Outcome } from './domain/types.ts';
import type { ToolReply } from './tool-reply.ts';
import { errorReply, reply } from './tool-reply.ts';
import { runTool } from './tool-runner.ts';
import type { ToolRuntime } from './tool-runner.ts';
import { DEFAULT_BOOK_DEPTH, inputSchemas, outputSchemas } from './tool-schemas.ts';
import { bookText, cancelText, metricsText, ordersText, placeText, registerText, walletText } from './tool-text.ts';

export const SERVER_INFO = { name: 'power-exchange', version: '1.0.0' } as const;

export type ToolName = keyof typeof inputSchemas;
export const TOOL_NAMES = Object.keys(inputSchemas) as ToolName[];
export const WRITE_TOOLS: ReadonlySet<ToolName> = new Set(['placeOrder', 'cancelOrder', 'registerUser']);

const READ = { readOnlyHint: true, openWorldHint: false } as const;

const INSTRUCTIONS =
  `A demo electricity exchange (day-ahead contracts ${DEFAULT_SYMBOLS.join(', ')}; default ${DEFAULT_SYMBOL}). ` +
  'Prices are EUR/MWh with a 0.01 tick, quantities MWh in steps of 0.1. Demo users: alice, bob. ' +
  ('Orders match by price-time priority at the resting order price; a BUY ' +
    'reserves limit price × quantity of cash, a SELL reserves the energy. ') +
  "Writes honour _meta['toolgate/idempotency-key']: a repeated key returns the first result without trading again.";

// Views are plain JSON data; the round trip gives them the JsonObject type honestly.
function json(value: object): JsonObject {
  return JSON.parse(JSON.stringify(value)) as JsonObject;
}

function answer<T extends object>(
  outcome: Outcome<T>,
  text: (value: T) => string,
  data: (value: T) => object = (value) => value,
): ToolReply {
  return outcome.ok ? reply(text(outcome.value), json(data(outcome.value))) : errorReply(outcome.error);
}

interface ToolDefinition<S extends z.ZodObject> {
  title: string;
  description: string;
  annotations: ToolAnnotations;
  handle: (args: z.infer<S>) => ToolReply;
}

/** One McpServer with the venue's tools; HTTP builds one per request over the same runtime. */
export function createPowerExchangeServer(runtime: ToolRuntime): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS });
  const { exchange, stats } = runtime;

  function tool<N extends ToolName>(name: N, definition: ToolDefinition<(typeof inputSchemas)[N]>): void {
    const inputSchema = inputSchemas[name] as z.ZodObject;
    server.registerTool(
      name,
      {
        title: definition.title,
        description: definition.description,
        inputSchema,
        outputSchema: outputSchemas[name],
        annotations: definition.annotations,
      },
      async (args: Record<string, unknown>, ctx: ServerContext) =>
        runTool(runtime, {
          tool: name,
          write: WRITE_TOOLS.has(name),
          meta: ctx.mcpReq._meta,
          execute: () => definition.handle(args as z.infer<(typeof inputSchemas)[N]>),
        }),
    );
  }

  tool('getOrderBook', {
    title: 'Order book',
    description:
      `Aggregated bids and asks of a contract, best price first (price EUR/MWh, quantity MWh, ` +
      `number of orders). Default symbol ${DEFAULT_SYMBOL}, default depth ${DEFAULT_BOOK_DEPTH}.`,
    annotations: READ,
    handle: ({ symbol = DEFAULT_SYMBOL, depth = DEFAULT_BOOK_DEPTH }) =>
      answer(
        exchange.getOrderBook(symbol, depth),
        (book) => bookText({ ...book, depth }),
        (book) => ({ ...book, depth }),
      ),
  });
  tool('getMarketMetrics', {
    title: 'Market metrics',
    description:
      'Last price, best bid/ask, spread, mid, traded volume, turnover, trade ' +
      'count and VWAP of a contract since the venue started. Nulls mean no data yet.',
    annotations: READ,
    handle: ({ symbol = DEFAULT_SYMBOL }) => answer(exchange.getMetrics(symbol), metricsText),
  });
  tool('getUserWallet', {
    title: 'User wallet',
    description:
      "A user's cash (EUR) and energy (MWh), with the amounts reserved " +
      'by open orders and what is still available for new orders.',
    annotations: READ,
    handle: ({ userId }) => answer(exchange.getWallet(userId), walletText),
  });
  tool('getUserOrders', {
    title: 'User orders',
    description:
      "A user's orders, newest first, filtered by status: open (resting, " +
      'possibly partly filled), filled, cancelled or all (default).',
    annotations: READ,
    handle: ({ userId, status = 'all' }) => {
      const outcome = exchange.getOrders(userId, status);
      if (!outcome.ok) return errorReply(outcome.error);
      return reply(ordersText(userId, status, outcome.value), json({ userId, status, orders: outcome.value }));
    },
  });
  tool('checkUserExists', {
    title: 'Check user',
    description: 'Whether a user id is registered. Never an error: answers exists true or false.',
    annotations: READ,
    handle: ({ userId }) => {
      const exists = exchange.hasUser(userId);
      return reply(exists ? `User ${userId} exists.` : `User ${userId} does not exist; registerUser creates it.`, {
        userId,
        exists,
      });
    },
  });
  tool('getServerStats', {
    title: 'Server statistics',
    description:
      'Test aid: tool calls received, executed and answered from the ' +
      'idempotency store (deduplicated) since this process started.',
    annotations: READ,
    handle: () => {
      const snapshot = stats.snapshot();
      return reply(`Server stats: ${JSON.stringify(snapshot)}`, json(snapshot));
    },
  });
  tool('placeOrder', {
    title: 'Place order',
    description:
      'Places a limit order. It trades immediately against resting ' +
      'orders that cross (price-time priority, at the resting price); ' +
      ('any remainder rests in the book. A BUY needs limit price × ' +
        'qty of available cash, a SELL needs qty of available energy. ') +
      'Not idempotent: every call is a new order unless the same idempotency key is sent.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handle: (args) => answer(exchange.placeOrder(args), placeText),
  });
  tool('cancelOrder', {
    title: 'Cancel order',
    description:
      'Cancels the unfilled rest of an open order and releases its reserved ' +
      'cash or energy. Cancelling a cancelled order changes nothing.',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handle: (args) => answer(exchange.cancelOrder(args), cancelText),
  });
  tool('registerUser', {
    title: 'Register user',
    description:
      `Creates a user with a starting wallet (${DEFAULT_INITIAL_CASH_EUR} EUR, ${DEFAULT_INITIAL_ENERGY_MWH} MWh). ` +
      'With an existing userId it returns that user unchanged; without one it generates an id.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: (args) => answer(exchange.registerUser(args), registerText),
  });
  return server;
}
