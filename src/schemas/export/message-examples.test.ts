/**
 * docs/commands-and-events.md shows a complete example of each command and of the events it ends
 * with. Every JSON block there, and any in README.md, is tagged `command:<type>` or
 * `event:<type>` and parsed here with that schema, made strict so a field the schema does not
 * have fails too.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EVENTS, type EventType } from '../messages/events.js';
import { strictDeep } from '../messages/strict.js';
import { COMMANDS } from '../messages/topics.js';
import type { CommandKind } from './json-schemas.js';

const read = (path: string) =>
  readFileSync(fileURLToPath(new URL(`../../../${path}`, import.meta.url)), 'utf8');

interface Block {
  readonly tag: string;
  readonly json: string;
  readonly section: string;
}

/** Every ```json block, with its tag and the `## ` or `### ` section it is in. */
function jsonBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  let section = '';
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const heading = /^#{2,3} (.*)/.exec(line);
    if (heading) section = (heading[1] ?? '').replaceAll('`', '');
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

const blocks = jsonBlocks(read('docs/commands-and-events.md'));
const everyBlock = [
  ...blocks.map((block) => ({ ...block, doc: 'docs/commands-and-events.md' })),
  ...jsonBlocks(read('README.md')).map((block) => ({ ...block, doc: 'README.md' })),
];

describe('the JSON examples of docs/commands-and-events.md and README.md', () => {
  it.each(everyBlock.map((block) => [block.doc, block.tag || '(untagged)', block]))(
    'in %s, the %s example is valid for its schema',
    (_doc, _tag, block) => {
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
