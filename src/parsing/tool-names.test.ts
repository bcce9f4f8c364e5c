import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cleanToolName, closestTool } from './tool-names.ts';

const declared = (names: string[]) => (name: string) => names.includes(name);
const TOOLS = ['get_weather', 'search', 'fs.read_file'];
const has = declared(TOOLS);

describe('cleanToolName', () => {
  it('leaves a declared name alone', () => {
    assert.deepEqual(cleanToolName('get_weather', has), { name: 'get_weather', repairs: [] });
    assert.deepEqual(cleanToolName('fs.read_file', has), { name: 'fs.read_file', repairs: [] });
  });

  it('strips functions. and to= prefixes and :N index suffixes', () => {
    assert.deepEqual(cleanToolName('functions.get_weather:0', has), {
      name: 'get_weather',
      repairs: ['stripped_name_index', 'stripped_name_prefix'],
    });
    assert.deepEqual(cleanToolName('to=functions.search', has), { name: 'search', repairs: ['stripped_name_prefix'] });
    assert.deepEqual(cleanToolName('search:12', has), { name: 'search', repairs: ['stripped_name_index'] });
  });

  it('cuts the name at the first character a tool name cannot hold', () => {
    assert.deepEqual(cleanToolName('get_weather<|channel|>commentary', has), {
      name: 'get_weather',
      repairs: ['cut_name_at_invalid_character'],
    });
    assert.deepEqual(cleanToolName('search"}', has), { name: 'search', repairs: ['cut_name_at_invalid_character'] });
    assert.deepEqual(cleanToolName('  search \n', has), { name: 'search', repairs: [] });
  });

  it('never turns a name into another tool: no repairs unless the result is declared', () => {
    assert.deepEqual(cleanToolName('functions.delete_all:0', has), { name: 'functions.delete_all', repairs: [] });
    assert.deepEqual(cleanToolName('get_weather_v2', has), { name: 'get_weather_v2', repairs: [] });
    // A prefix that is part of a declared name is not stripped.
    assert.deepEqual(cleanToolName('fs.read_file:1', has), { name: 'fs.read_file', repairs: ['stripped_name_index'] });
  });
});

describe('closestTool', () => {
  it('suggests the near miss, and nothing for an unrelated or empty name', () => {
    assert.equal(closestTool('get_wether', TOOLS), 'get_weather');
    assert.equal(closestTool('GetWeather', TOOLS), 'get_weather');
    assert.equal(closestTool('send_email', TOOLS), undefined);
    assert.equal(closestTool('', TOOLS), undefined);
    assert.equal(closestTool('x'.repeat(10_000), TOOLS), undefined);
  });
});
