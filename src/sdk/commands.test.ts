import { describe, expect, it } from 'vitest';
import { CommandRefused } from '../errors.js';
import { commandFingerprint } from '../ledger/index.js';
import { COMMANDS, type CommandType, topicNames } from '../schemas/messages/index.js';
import { COMMAND_MAX_BYTES, type CommandInput, prepareCommand } from './commands.js';

const topics = topicNames('t.');
const remind = { commandId: 'c-1', bizId: 'order-1', payload: {} };

function refusalOf(type: string, input: unknown): CommandRefused {
  try {
    prepareCommand(type as CommandType, input as CommandInput<CommandType>, topics);
  } catch (error) {
    if (error instanceof CommandRefused) return error;
    throw error;
  }
  throw new Error('the command was not refused');
}

/** An add-document command whose JSON is `bytes` long, give or take nothing. */
function documentOf(bytes: number) {
  const base = { commandId: 'c-2', bizId: 'order-1', payload: {} };
  const make = (length: number) => ({
    ...base,
    payload: {
      source: 'file',
      title: 't',
      fileSuffix: 'pdf',
      file: { url: `https://x.test/${'a'.repeat(length)}` },
    },
  });
  const overhead = JSON.stringify(make(0)).length;
  return make(bytes - overhead);
}

describe('prepareCommand', () => {
  it('when the command is valid, then it becomes a record on its type topic keyed by bizId, as given', () => {
    const prepared = prepareCommand('remind', remind, topics);
    expect(prepared).toEqual({
      type: 'remind',
      commandId: 'c-1',
      bizId: 'order-1',
      fingerprint: commandFingerprint('remind', remind),
      record: { topic: 't.commands.remind', key: 'order-1', value: JSON.stringify(remind) },
    });
  });

  it('when a command is prepared, then its fingerprint is the one the bridge makes of the record it decodes; other content, another', () => {
    const approve = { commandId: 'c-1', bizId: 'order-1', payload: { pass: true, comment: 'ok' } };
    const prepared = prepareCommand('approve', approve, topics);
    const decoded = COMMANDS.approve.schema.parse(JSON.parse(String(prepared.record.value)));
    expect(prepared.fingerprint).toBe(commandFingerprint('approve', decoded));
    const refused = { ...approve, payload: { pass: false, comment: 'ok' } };
    expect(prepareCommand('approve', refused, topics).fingerprint).not.toBe(prepared.fingerprint);
  });

  it('when the command has no commandId, then a fresh one is made up for each', () => {
    const { commandId: _, ...withoutId } = remind;
    const first = prepareCommand('remind', withoutId, topics);
    const second = prepareCommand('remind', withoutId, topics);
    expect(first.commandId).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.commandId).not.toBe(first.commandId);
    expect(JSON.parse(String(first.record.value))).toMatchObject({ commandId: first.commandId });
  });

  it('when fields break the schema, then CommandRefused names every one of them', () => {
    const error = refusalOf('approve', {
      commandId: 'has space',
      bizId: '',
      payload: { pass: 'yes' },
    });
    expect(error.code).toBe('SB_ERR_SDK_COMMAND_INVALID');
    expect(error.details.fields.map((f) => f.path).sort()).toEqual([
      'bizId',
      'commandId',
      'payload.pass',
    ]);
    expect(error.message).toMatch(/^approve command not sent: /);
  });

  it('when the bizId has spaces around it, then it is refused: the key would not equal it', () => {
    const error = refusalOf('remind', { ...remind, bizId: ' order-1 ' });
    expect(error.details.fields).toEqual([
      { path: 'bizId', rule: expect.stringContaining('spaces') },
    ]);
  });

  it('when the type is not a command type, then it is refused naming the types', () => {
    expect(refusalOf('reminder', remind).details.fields[0]?.path).toBe('(type)');
  });

  it(`when the command is ${COMMAND_MAX_BYTES} bytes as JSON, then it is sent; one byte more, it is refused`, () => {
    const atLimit = documentOf(COMMAND_MAX_BYTES);
    expect(JSON.stringify(atLimit)).toHaveLength(COMMAND_MAX_BYTES);
    expect(prepareCommand('add-document', atLimit as never, topics).commandId).toBe('c-2');
    const over = refusalOf('add-document', documentOf(COMMAND_MAX_BYTES + 1));
    expect(over.details.fields).toEqual([
      { path: '(command)', rule: expect.stringContaining(`${COMMAND_MAX_BYTES + 1} bytes`) },
    ]);
  });
});
