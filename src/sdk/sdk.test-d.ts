/**
 * What the compiler says of code using the SDK: a command is typed by its command type, so a
 * wrong field, a wrong type or a missing field is a compile error; an event narrows by `type`.
 * (`@ts-expect-error` fails the type check when the line below it compiles.)
 */
import { describe, expectTypeOf, it } from 'vitest';
import type {
  BridgeEvent,
  CommandInput,
  CommandProducer,
  EventSubscriber,
  SentCommand,
} from './index.js';

declare const producer: CommandProducer;
declare const subscriber: EventSubscriber;

describe('CommandProducer', () => {
  it('takes each command as its schema does, commandId optional, and says where it went', () => {
    expectTypeOf(producer.send('remind', { bizId: 'b', payload: {} })).resolves.toEqualTypeOf<
      SentCommand<'remind'>
    >();
    expectTypeOf(producer.send('approve', { commandId: 'c', bizId: 'b', payload: { pass: true } }))
      .resolves.toHaveProperty('offset')
      .toEqualTypeOf<string>();
    expectTypeOf<CommandInput<'approve'>['payload']['pass']>().toEqualTypeOf<boolean>();
  });

  it('refuses, at compile time, a field of the wrong type', () => {
    // @ts-expect-error pass is a boolean
    producer.send('approve', { bizId: 'b', payload: { pass: 'yes' } });
    // @ts-expect-error bizId is a string
    producer.send('remind', { bizId: 42, payload: {} });
  });

  it('refuses, at compile time, a field its schema does not have', () => {
    // @ts-expect-error bizid is not bizId
    producer.send('remind', { bizid: 'b', payload: {} });
    // @ts-expect-error onlySigning belongs to remind, not approve
    producer.send('approve', { bizId: 'b', payload: { pass: true, onlySigning: true } });
  });

  it('refuses, at compile time, a missing field and an unknown command type', () => {
    // @ts-expect-error bizId is required
    producer.send('remind', { payload: {} });
    // @ts-expect-error there is no command type "reminder"
    producer.send('reminder', { bizId: 'b', payload: {} });
    // @ts-expect-error a sendMany entry is typed by its own type
    producer.sendMany([{ type: 'approve', command: { bizId: 'b', payload: { pass: 1 } } }]);
  });
});

describe('BridgeEvent', () => {
  it('narrows its data by its type', () => {
    expectTypeOf(
      subscriber.waitForOutcome({ bizId: 'b', commandId: 'c' }),
    ).resolves.toEqualTypeOf<BridgeEvent>();
    const event = {} as BridgeEvent;
    if (event.type === 'signingbridge.command.failed') {
      expectTypeOf(event.data.error.code).toEqualTypeOf<string>();
    }
    if (event.type === 'signingbridge.contract.created') {
      expectTypeOf(event.data.documentIds).toEqualTypeOf<string[]>();
      // @ts-expect-error a contract.created has no error
      event.data.error;
    }
  });
});
