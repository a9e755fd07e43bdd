import { describe, expect, it } from 'vitest';
import { stepEvent } from './step-event.js';

const subject = {
  type: 'remind' as const,
  command: { commandId: 'cmd-1', bizId: 'biz-1' },
  progress: { contractId: 'c-known' },
};

describe('stepEvent', () => {
  it("when a handler makes an event, then it carries the command's ids after the handler's own fields, and the contractId the ledger knows", () => {
    const event = stepEvent(subject, 'remind', 'signingbridge.reminder.sent', {
      onlySigning: true,
    });
    expect(event).toEqual({
      type: 'signingbridge.reminder.sent',
      step: 'remind',
      data: {
        onlySigning: true,
        commandId: 'cmd-1',
        bizId: 'biz-1',
        commandType: 'remind',
        contractId: 'c-known',
      },
    });
    expect(Object.keys(event.data)).toEqual([
      'onlySigning',
      'commandId',
      'bizId',
      'commandType',
      'contractId',
    ]);
  });

  it("when the handler names a contractId, then it is the event's, in the handler's place", () => {
    const event = stepEvent(subject, 'remind', 'signingbridge.reminder.sent', {
      contractId: 'c-new',
      onlySigning: false,
    });
    expect(event.data.contractId).toBe('c-new');
    expect(Object.keys(event.data)[0]).toBe('contractId');
  });
});
