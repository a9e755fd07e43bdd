import { describe, expect, it } from 'vitest';
import { FaultKind } from '../simulator/faults/config.js';
import { faultOptionUsage, parseFaultOption } from './fault-option.js';
import { usage } from './simulator-command.js';

describe('parseFaultOption', () => {
  it.each([
    [
      'late,operation=addSignatory,ms=4000',
      { operation: 'addSignatory', kind: 'late', times: 1, ms: 4000 },
    ],
    [
      'kind=late,operation=addSignatory,times=2,ms=4000',
      { operation: 'addSignatory', kind: 'late', times: 2, ms: 4000 },
    ],
    ['maintenance,status=503,times=5', { kind: 'maintenance', times: 5, status: 503 }],
    ['maintenance', { kind: 'maintenance', times: 1 }],
    ['huge,bytes=104857600', { kind: 'huge', times: 1, bytes: 104_857_600 }],
    [
      'drip, ms=50 ,operation=remindSignatories',
      { operation: 'remindSignatories', kind: 'drip', times: 1, ms: 50 },
    ],
    [
      'resetAfterApply,operation=createDraft',
      { operation: 'createDraft', kind: 'resetAfterApply', times: 1 },
    ],
    ['garbage,times=3', { kind: 'garbage', times: 3 }],
    ['http503,ms=200', { kind: 'http503', times: 1, ms: 200 }],
  ])('when the value is "%s", then it is the scripted fault %j', (spec, fault) => {
    expect(parseFaultOption(spec)).toEqual(fault);
  });

  it.each([
    ['crash', /the kind must be one of http503, .*huge/],
    ['operation=addSignatory', /the kind must be one of/],
    ['late', /--fault "late": late needs ms/],
    ['drip', /drip needs ms/],
    ['late,ms=soon', /ms must be a whole number, got "soon"/],
    ['late,ms=-5', /ms must be a whole number/],
    ['late,ms=1.5', /ms must be a whole number/],
    ['drip,ms=0', /ms: /],
    [
      'late,ms=10,colour=red',
      /unknown key "colour" \(keys: kind, operation, times, ms, status, bytes\)/,
    ],
    ['late,late', /kind is given twice/],
    ['late,ms=', /ms has no value/],
    ['late,ms=10,operation=signContract', /operation: /],
    ['garbage,times=0', /times: /],
    ['maintenance,status=700', /status: /],
    ['http503,status=502', /http503 takes no status/],
    ['garbage,bytes=10', /garbage takes no bytes/],
    ['huge,bytes=2000000000', /bytes: /],
    ['', /kind has no value/],
  ])('when the value is "%s", then it is refused naming the problem', (spec, message) => {
    expect(() => parseFaultOption(spec)).toThrow(message);
  });
});

describe('the usage text', () => {
  it('describes --fault with every fault kind', () => {
    const text = usage();

    expect(text).toContain('--fault SPEC');
    for (const kind of FaultKind.options) expect(text).toContain(kind);
  });

  it('keeps the option lines within the width asked for', () => {
    const lines = `${' '.repeat(24)}${faultOptionUsage(24, 92)}`.split('\n');

    expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(92);
  });
});
