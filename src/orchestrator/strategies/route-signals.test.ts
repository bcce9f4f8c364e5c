import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { routeBySignals, routeSignals } from './route-signals.ts';

const TOOLS = ['getOrderBook', 'getMarketMetrics', 'get_user_wallet', 'placeOrder', 'cancelOrder'];
const route = (input: string, writeTools = 2) =>
  routeBySignals(routeSignals(input, TOOLS), { tools: TOOLS.length, writeTools, input })?.route;

describe('the router signals', () => {
  it('finds tools by name or by the words of their name', () => {
    assert.deepEqual(routeSignals('show the order book and the market metrics', TOOLS).toolsMentioned, [
      'getOrderBook',
      'getMarketMetrics',
    ]);
    assert.deepEqual(routeSignals("what is in bob's user wallet?", TOOLS).toolsMentioned, ['get_user_wallet']);
    assert.deepEqual(routeSignals('call placeOrder', TOOLS).toolsMentioned, ['placeOrder']);
  });

  it('counts verbs of change, not nouns that look like them', () => {
    assert.deepEqual(routeSignals('Buy 5 MWh and send me the receipt', TOOLS).changeVerbs, ['buy', 'send']);
    assert.deepEqual(routeSignals('show my order history', TOOLS).changeVerbs, []);
    assert.deepEqual(routeSignals('the order book please', TOOLS).changeVerbs, []);
    assert.deepEqual(routeSignals('cancelled orders and transfers?', TOOLS).changeVerbs, []);
    assert.deepEqual(routeSignals('Please cancel it', TOOLS).changeVerbs, ['cancel']);
  });

  it('counts steps by sequencing words and list items', () => {
    assert.equal(routeSignals('check the book, then buy, then report', TOOLS).steps, 3);
    assert.equal(routeSignals('1. check\n2. buy\n3. report', TOOLS).steps, 4);
  });

  it('routes: answer, react, plan, or undecided', () => {
    assert.equal(route('hello!'), 'answer');
    assert.equal(route('thanks a lot'), 'answer');
    assert.equal(route('show me the order book'), 'react');
    assert.equal(route('buy 5 MWh for bob'), 'plan');
    assert.equal(route('buy 5 MWh for bob', 0), undefined, 'no tool can change anything: the verb decides nothing');
    assert.equal(route('look at x, then y, then z'), 'plan');
    assert.equal(route('how is it going with the market?'), undefined);
    assert.equal(
      routeBySignals(routeSignals('anything', []), { tools: 0, writeTools: 0, input: 'anything' })?.route,
      'answer',
    );
    assert.equal(route('x'.repeat(700)), 'plan');
  });
});
