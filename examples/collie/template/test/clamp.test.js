// The regression suite of tiny-stats (`npm test` = `node --test test/*.test.js`): the behaviour that already works.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clamp } from '../src/stats.js';

test('clamp keeps a value inside the range', () => assert.equal(clamp(2, 0, 3), 2));
test('clamp cuts at the upper bound', () => assert.equal(clamp(5, 0, 3), 3));
test('clamp cuts at the lower bound', () => assert.equal(clamp(-1, 0, 3), 0));
