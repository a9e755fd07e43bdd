/**
 * README.md shows a complete example of each command and of the events it ends with. Every JSON
 * block there is tagged `command:<type>` or `event:<type>` and parsed here with that schema,
 * made strict so a field the schema does not have fails too.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EVENTS, type EventType } from '../messages/events.js';
import { strictDeep } from '../messages/strict.js';
import { COMMANDS } from '../messages/topics.js';
import type { CommandKind } from './json-schemas.js';

const readme = readFileSync(fileURLToPath(new URL('../../../README.md', import.meta.url)), 'utf8');

interface Block {
  readonly tag: string;
  readonly json: string;
  readonly section: string;
}

/** Every ```json block, with its tag and the `### ` section it is in. */
function jsonBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  let section = '';
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.startsWith('### ')) section = line.slice(4).replaceAll('`', '');
    const fence = /^```json\s*(\S*)/.exec(line);
    if (!fence) continue;
    const end = lines.indexOf('```', i + 1);
    blocks.push({ tag: fence[1] ?? '', json: lines.slice(i + 1, end).join('\n'), section });
    i = end;
  }
  return blocks;
}

function schemaOf(tag: string) {
  const [kind, name] = tag.split(':');
  if (kind === 'command' && name && name in COMMANDS) return COMMANDS[name as CommandKind].schema;
  if (kind === 'event' && name && name in EVENTS) return strictDeep(EVENTS[name as EventType].data);
  return undefined;
}

const blocks = jsonBlocks(readme);

describe('the JSON examples of README.md', () => {
  it.each(blocks.map((block) => [block.tag || '(untagged)', block]))(
    'the %s example is valid for its schema',
    (_, block) => {
      const schema = schemaOf(block.tag);
      expect(
        schema,
        `tag a JSON block command:<type> or event:<type>, not "${block.tag}"`,
      ).toBeDefined();
      const result = schema?.safeParse(JSON.parse(block.json));
      expect(result?.error?.issues ?? []).toEqual([]);
    },
  );

  it.each(Object.keys(COMMANDS) as CommandKind[])(
    'the %s section has a command and the event that ends it',
    (type) => {
      const inSection = blocks.filter((block) => block.section === type).map((b) => b.tag);
      const ending = (Object.keys(EVENTS) as EventType[]).find((e) => EVENTS[e].terminal === type);
      expect(inSection).toEqual(expect.arrayContaining([`command:${type}`, `event:${ending}`]));
    },
  );

  it('every event type has an example', () => {
    const shown = new Set(blocks.map((block) => block.tag));
    const missing = Object.keys(EVENTS).filter((type) => !shown.has(`event:${type}`));
    expect(missing).toEqual([]);
  });
});
