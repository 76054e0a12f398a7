import { describe, expect, it } from 'vitest';
import { JSON_MAX_DEPTH, JSON_MAX_ENTRIES, JSON_TOO_DEEP, JSON_TOO_WIDE, jsonShapeProblem, parseJsonBody } from './json-body.ts';
import { HttpError } from './http-errors.ts';

const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const list = (entries: number) => `[${Array.from({ length: entries }, (_, i) => i).join(',')}]`;
const statusOf = (text: string) => {
  try {
    parseJsonBody(text);
    return 200;
  } catch (error) {
    return (error as HttpError).statusCode;
  }
};

describe('the JSON body guard', () => {
  it('lets through bodies up to the depth and width bounds, and refuses one level or entry more', () => {
    expect(jsonShapeProblem(nested(JSON_MAX_DEPTH))).toBeNull();
    expect(jsonShapeProblem(nested(JSON_MAX_DEPTH + 1))).toBe(JSON_TOO_DEEP);
    expect(jsonShapeProblem(`{"a":{"b":${nested(JSON_MAX_DEPTH - 2)}}}`)).toBeNull();
    expect(jsonShapeProblem(list(JSON_MAX_ENTRIES))).toBeNull();
    expect(jsonShapeProblem(list(JSON_MAX_ENTRIES + 1))).toBe(JSON_TOO_WIDE);
    expect(jsonShapeProblem(`{"data":[${list(JSON_MAX_ENTRIES + 1)}]}`)).toBe(JSON_TOO_WIDE);
  });

  it('counts brackets and commas inside strings as text, escaped quotes included', () => {
    expect(jsonShapeProblem(JSON.stringify({ a: nested(50), b: ','.repeat(JSON_MAX_ENTRIES + 1), c: '\\"[[[[[[[[[[' }))).toBeNull();
    expect(parseJsonBody(JSON.stringify({ a: '"[[[[[[[[[["' }))).toEqual({ a: '"[[[[[[[[[["' });
  });

  it('refuses 7.9 MiB of nested arrays at once, before parsing', () => {
    // JSON.parse would parse it (or throw its own error): JSON_TOO_DEEP is the guard's, which looks before parsing.
    expect(() => parseJsonBody(nested(4 * 1024 * 1024 - 50_000))).toThrow(JSON_TOO_DEEP);
  });

  it('keeps refusing __proto__ and constructor.prototype keys, empty and broken bodies, with 400', () => {
    expect(statusOf('{"__proto__":{"admin":true}}')).toBe(400);
    expect(statusOf('{"constructor":{"prototype":{"admin":true}}}')).toBe(400);
    expect(statusOf('')).toBe(400);
    expect(statusOf('{"a":')).toBe(400);
    expect(statusOf('{"a":[1,{"b":"c"}]}')).toBe(200);
  });
});
