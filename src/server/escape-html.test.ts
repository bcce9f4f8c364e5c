import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeHtml } from './escape-html.ts';

describe('escapeHtml', () => {
  it('leaves no character that could open a tag, an entity or end an attribute', () => {
    const hostile = `<script>alert("x")</script>&amp;' onload='x`;
    const escaped = escapeHtml(hostile);
    assert.doesNotMatch(escaped, /[<>"']|&(?!#\d+;)/);
    assert.equal(escaped, '&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;&#38;amp;&#39; onload=&#39;x');
  });
});
