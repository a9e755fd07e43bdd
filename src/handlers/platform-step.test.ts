import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { verdictOf } from '../api-client/index.js';
import {
  CommandOutcomeUnknown,
  OutcomeUnknown,
  PartitionReleased,
  PlatformRejected,
  RequestNotSent,
} from '../errors.js';
import type { StepRecord } from '../schemas/messages/index.js';
import { WHEN_IN_DOUBT } from '../schemas/platform/in-doubt.js';
import type { OperationName } from '../schemas/platform/operations.js';
import { callOnce, type PlatformCall } from './platform-step.js';
import { StepFailed } from './settle.js';
import type { CommandContext } from './types.js';

const silent = pino({ level: 'silent' });
const call = { operation: 'addSignatory', bizId: 'b-1' };
const timeout = () => new OutcomeUnknown('x', { details: { ...call, reason: 'deadline' } });
const notSent = () => new RequestNotSent('x', { details: { ...call, reason: 'ECONNREFUSED' } });
const refused1101 = () =>
  new PlatformRejected('1101', {
    details: {
      ...call,
      platformCode: '1101',
      rawCode: '1101',
      platformName: 'INVALID CONTRACT STATUS',
      platformMessage: '',
      httpStatus: 200,
      family: 'business',
    },
  });

/** A command's ledger as the step sees it, and what the step wrote to it. */
function ledger(steps: Record<string, StepRecord> = {}, resent = false) {
  const writes: string[] = [];
  const ownership = { lost: false };
  const context = {
    command: { commandId: 'c-1', bizId: 'b-1' },
    progress: { steps, resent },
    record: async (step: string, record: StepRecord) => {
      writes.push(`${step} ${record.state}`);
    },
    forget: async (step: string) => {
      writes.push(`${step} forgotten`);
    },
    assertOwned: () => {
      if (ownership.lost) throw new PartitionReleased('lost', { details: { partition: 0 } });
    },
    signal: new AbortController().signal,
    log: silent,
  } as unknown as CommandContext;
  return { context, writes, ownership };
}

/**
 * A call whose attempts end as `outcomes` say (undefined: answered), made as the api-client's
 * transport makes them: each attempt waits for its recorder before its request is written, and
 * tells it of an attempt that did not apply (any failure but one in doubt). `waits` fails an attempt while it still waits for
 * its token or slot (before the recorder), as a stopped run does. `calls` counts requests written.
 */
function step(operation: OperationName, outcomes: (() => unknown)[], waits?: () => unknown) {
  let calls = 0;
  const made: PlatformCall<Record<string, never>> = {
    name: 's',
    operation,
    sent: 'what was asked',
    async call({ recorder }) {
      if (waits) throw waits();
      try {
        await recorder?.beforeSend();
        const next = outcomes[calls++];
        if (next === undefined) return { result: {} };
        throw next();
      } catch (error) {
        if (verdictOf(error).delivery !== 'in-doubt') recorder?.notApplied();
        throw error;
      }
    },
    reconcile: (error) => (error instanceof PlatformRejected ? {} : undefined),
  };
  return { made, calls: () => calls };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StepFailed);
  return (error as StepFailed).cause;
}

const reportOps = (Object.keys(WHEN_IN_DOUBT) as OperationName[]).filter(
  (op) => WHEN_IN_DOUBT[op].rule === 'report',
);

describe('a platform call made at most once', () => {
  it('when the call succeeds, then it was announced before and made once', async () => {
    const { context, writes } = ledger();
    const s = step('addSignatory', []);
    await callOnce(context, s.made);
    expect(writes).toEqual(['s started']);
    expect(s.calls()).toBe(1);
  });

  it.each(reportOps)(
    'when a %s call times out after sending, then the step fails "outcome unknown" naming the operation, with the timeout as cause',
    async (operation) => {
      const { context } = ledger();
      const cause = await failure(callOnce(context, step(operation, [timeout]).made));
      expect(cause).toBeInstanceOf(CommandOutcomeUnknown);
      expect((cause as CommandOutcomeUnknown).details).toMatchObject({
        operation,
        step: 's',
        sent: 'what was asked',
        bizId: 'b-1',
        causeCode: 'SB_ERR_TRANSPORT_OUTCOME_UNKNOWN',
      });
      expect((cause as CommandOutcomeUnknown).retryable).toBe(false);
    },
  );

  it.each(reportOps)(
    'when a %s step is found started by a later run (the process died during the call), then the platform is not called',
    async (operation) => {
      const { context, writes } = ledger({ s: { state: 'started' } });
      const s = step(operation, []);
      const cause = await failure(callOnce(context, s.made));
      expect(cause).toBeInstanceOf(CommandOutcomeUnknown);
      expect((cause as CommandOutcomeUnknown).message).toContain(
        'the process stopped while the call was under way',
      );
      expect(s.calls()).toBe(0);
      expect(writes).toEqual([]);
    },
  );

  it('when the same commandId is sent again after "outcome unknown", then the call in doubt is made again', async () => {
    const { context, writes } = ledger({ s: { state: 'started' } }, true);
    const s = step('addSignatory', []);
    await callOnce(context, s.made);
    expect(s.calls()).toBe(1);
    expect(writes).toEqual([]);
  });

  it('when a reconcilable step in doubt is answered with its proof, then it is settled without a second effect', async () => {
    const { context } = ledger({ s: { state: 'started' } });
    const s = step('initiateContract', [refused1101]);
    await expect(callOnce(context, s.made)).resolves.toEqual({ result: {} });
  });

  it('when a reconcilable step times out, then the error is kept for a retry that reconciles', async () => {
    const { context } = ledger();
    const cause = await failure(callOnce(context, step('createDraft', [timeout]).made));
    expect(cause).toBeInstanceOf(OutcomeUnknown);
  });

  it('when the same refusal comes for a fresh step, then it proves nothing: the refusal stands, and the step is forgotten (nothing happened)', async () => {
    const { context, writes } = ledger();
    const cause = await failure(callOnce(context, step('initiateContract', [refused1101]).made));
    expect(cause).toBeInstanceOf(PlatformRejected);
    expect(writes).toEqual(['s started', 's forgotten']);
  });

  it('when the call never reached the platform, then the announcement is forgotten so the next run is not in doubt', async () => {
    const { context, writes } = ledger();
    const cause = await failure(callOnce(context, step('addSignatory', [notSent]).made));
    expect(cause).toBeInstanceOf(RequestNotSent);
    expect(writes).toEqual(['s started', 's forgotten']);
  });

  it('when a step already in doubt is not sent this time, then it stays in doubt', async () => {
    const { context, writes } = ledger({ s: { state: 'started' } });
    await failure(callOnce(context, step('createDraft', [notSent]).made));
    expect(writes).toEqual([]);
  });

  it('when the run is stopped while its call waits for a rate token or a slot, then nothing was recorded: the next owner runs it as new', async () => {
    const { context, writes } = ledger();
    const s = step('remindSignatories', [], notSent);
    await failure(callOnce(context, s.made));
    expect(writes).toEqual([]);
    expect(s.calls()).toBe(0);
  });

  it('when the partition is lost while the start is being acknowledged, then the request never leaves, the start is withdrawn and the run ends as the partition says', async () => {
    const { context, writes, ownership } = ledger();
    const s = step('remindSignatories', []);
    const recorded = context.record.bind(context);
    context.record = async (name, record) => {
      await recorded(name, record);
      ownership.lost = true;
    };
    await expect(callOnce(context, s.made)).rejects.toBeInstanceOf(PartitionReleased);
    expect(s.calls()).toBe(0);
    expect(writes).toEqual(['s started', 's forgotten']);
  });

  it('when a first attempt is throttled and the second answered, then the start is withdrawn in between and recorded again before the second', async () => {
    const { context, writes } = ledger();
    const throttled = () =>
      new PlatformRejected('429', {
        details: {
          ...call,
          platformCode: '429',
          rawCode: '429',
          platformName: 'TOO MANY REQUESTS',
          platformMessage: '',
          httpStatus: 429,
          family: 'throttled',
        },
      });
    // Two attempts of one call, as the client retries a 429 itself.
    const made: PlatformCall<Record<string, never>> = {
      name: 's',
      operation: 'remindSignatories',
      sent: 'a reminder',
      async call({ recorder }) {
        await recorder?.beforeSend();
        expect(verdictOf(throttled()).delivery).toBe('not-applied');
        recorder?.notApplied();
        await recorder?.beforeSend();
        return { result: {} };
      },
    };
    await callOnce(context, made);
    expect(writes).toEqual(['s started', 's forgotten', 's started']);
  });
});
