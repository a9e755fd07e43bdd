import { describe, expect, it } from 'vitest';
import { EVENTS, type EventType } from './events.js';
import { COMMAND_EXAMPLES, EVENT_EXAMPLES } from './examples.js';
import { COMMANDS } from './topics.js';

describe('the examples the JSON Schemas show', () => {
  it.each(Object.keys(COMMANDS) as Array<keyof typeof COMMANDS>)(
    'the %s command example is a valid command',
    (type) => {
      expect(COMMANDS[type].schema.safeParse(COMMAND_EXAMPLES[type]).error).toBeUndefined();
    },
  );

  it.each(Object.keys(EVENTS) as EventType[])('the %s example is valid event data', (type) => {
    expect(EVENTS[type].data.safeParse(EVENT_EXAMPLES[type]).error).toBeUndefined();
  });
});
