/**
 * What each page of the console does with a request: read its inputs (inputs.ts), ask Kafka or
 * the instances, and answer with a page. The server (server.ts) has already checked who asks,
 * their role for an action, and the action's CSRF token.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { ConsoleConfig } from '../../config/index.js';
import type { KafkaTools } from '../../kafka/index.js';
import { audit } from './audit.js';
import type { Identity } from './auth.js';
import type { ConsoleKafka } from './console-kafka.js';
import { readFailures } from './failure-search.js';
import { readGroup } from './group.js';
import { type Html, query } from './html.js';
import { redirect, sendHtml } from './http-io.js';
import {
  bizIdOf,
  commandIdOf,
  commandTypeOf,
  letterIdsOf,
  offsetOf,
  reasonOf,
  single,
  timeOf,
  WINDOWS,
  windowOf,
} from './inputs.js';
import { page, type Section } from './layout.js';
import { idOf, type LetterFilter, matches, named, readLetters, rows, sendBack } from './letters.js';
import type { LiveGroup } from './live-group.js';
import { commandMatches, searchForm, storyBody } from './pages/contract-page.js';
import { failuresBody } from './pages/failures-page.js';
import { groupFragment, groupPage } from './pages/group-page.js';
import { letterBody, lettersBody, sendBackBody } from './pages/letters-page.js';
import { messageBody } from './pages/plain-pages.js';
import { searchCommand, searchStory } from './story-search.js';

export interface Deps {
  readonly config: ConsoleConfig;
  readonly kafka: ConsoleKafka;
  readonly tools: KafkaTools;
  readonly log: Logger;
  readonly live: LiveGroup;
}

export interface Asked {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly url: URL;
  readonly identity: Identity;
  readonly csrf: string;
  /** The form of a POST. */
  readonly form: URLSearchParams;
}

export interface Route {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  /** Who may: an operator only, or anyone signed in. */
  readonly role: 'operator' | 'viewer';
  handle(deps: Deps, asked: Asked): Promise<void>;
}

const CHART_SLICES = 48;

function answer(asked: Asked, title: string, section: Section, body: Html, status = 200): void {
  const { identity, csrf } = asked;
  sendHtml(asked.res, status, page({ title, section, identity, csrf }, body));
}

export const ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/group',
    role: 'viewer',
    async handle(deps, asked) {
      try {
        answer(asked, 'Group', 'group', groupPage(await groupNow(deps)));
      } catch (error) {
        deps.log.warn({ err: error }, 'console: reading the group failed');
        answer(
          asked,
          'Group',
          'group',
          groupPage(undefined, `Kafka did not answer: ${(error as Error).message}`),
        );
      }
    },
  },
  {
    method: 'GET',
    path: '/group/live',
    role: 'viewer',
    async handle(deps, asked) {
      if (!deps.live.watch(asked.res)) {
        answer(
          asked,
          'Group',
          'group',
          messageBody('Too many pages are watching the group; close one.'),
          503,
        );
      }
    },
  },
  {
    method: 'GET',
    path: '/contract',
    role: 'viewer',
    async handle(deps, asked) {
      const fields = asked.url.searchParams;
      const bizId = bizIdOf(fields);
      const commandId = commandIdOf(fields);
      const pageNumber = Number(offsetOf(fields, 'page') ?? 0n);
      const bound = deps.config.CONSOLE_SCAN_RECORDS;
      const title = bizId ? `Contract ${bizId}` : 'Contract';
      if (bizId !== undefined) {
        const found = await searchStory(deps.kafka, bizId, bound, pageNumber);
        answer(
          asked,
          title,
          'contract',
          storyBody({ bizId, commandId, page: pageNumber }, found, bound),
        );
      } else if (commandId !== undefined) {
        const found = await searchCommand(deps.kafka, commandId, bound);
        answer(asked, `Command ${commandId}`, 'contract', commandMatches({ commandId }, found));
      } else {
        answer(asked, title, 'contract', searchForm({}));
      }
    },
  },
  {
    method: 'GET',
    path: '/failures',
    role: 'viewer',
    async handle(deps, asked) {
      const window = windowOf(asked.url.searchParams);
      const to = Date.now();
      const bound = deps.config.CONSOLE_SCAN_RECORDS;
      const read = await readFailures(
        deps.kafka,
        { from: to - WINDOWS[window], to, slices: CHART_SLICES },
        bound,
      );
      answer(asked, 'Failures', 'failures', failuresBody(window, read, bound));
    },
  },
  {
    method: 'GET',
    path: '/letters',
    role: 'viewer',
    async handle(deps, asked) {
      const fields = asked.url.searchParams;
      const filter = letterFilter(fields);
      const journal = await readLetters(deps.kafka, deps.config.CONSOLE_SCAN_RECORDS);
      const matching = rows(journal, deps.kafka.topics).filter((row) => matches(row, filter));
      const list = { rows: matching, beyond: journal.beyond, filter, asked: filterFields(fields) };
      const body = lettersBody(list, asked.identity, asked.csrf, deps.config.CONSOLE_REPLAY_LIMIT);
      answer(asked, 'Dead letters', 'letters', body);
    },
  },
  {
    method: 'GET',
    path: '/letters/view',
    role: 'viewer',
    async handle(deps, asked) {
      await showLetter(deps, asked, asked.url.searchParams, false);
    },
  },
  {
    method: 'POST',
    path: '/letters/reveal',
    role: 'operator',
    async handle(deps, asked) {
      await showLetter(deps, asked, asked.form, true);
    },
  },
  {
    method: 'POST',
    path: '/letters/send',
    role: 'operator',
    async handle(deps, asked) {
      const { form } = asked;
      const all = single(form, 'all') === 'matching';
      const ids = letterIdsOf(form);
      const filter = letterFilter(form);
      if (!all && ids.length === 0) {
        answer(asked, 'Dead letters', 'letters', messageBody('No dead letter was chosen.'), 400);
        return;
      }
      const { CONSOLE_SCAN_RECORDS: bound, CONSOLE_REPLAY_LIMIT: limit } = deps.config;
      const result = await sendBack(
        deps.tools,
        deps.kafka,
        (found) =>
          all
            ? { rows: found.filter((row) => matches(row, filter) && !row.replayed), missing: [] }
            : named(found, ids),
        { bound, limit },
      );
      audit(deps.log, asked.identity, 'send back', {
        asked: all
          ? { all: 'matching', ...filterFields(form) }
          : { letters: ids.map((id) => `${id.partition}/${id.offset}`) },
        sent: result.replayed.map(({ letter, to }) => ({
          letter: `${letter.record.partition}/${letter.record.offset}`,
          commandId: letter.commandId,
          bizId: letter.original.key?.toString(),
          to: `${to.topic}/${to.partition}/${to.offset}`,
        })),
        refused: result.refused.map(({ entry, reason }) => ({
          letter: idOf(entry),
          commandId: entry.letter.commandId,
          bizId: entry.letter.original.key?.toString(),
          reason,
        })),
        missing: result.missing,
      });
      answer(asked, 'Dead letters sent back', 'letters', sendBackBody(result));
    },
  },
];

async function groupNow(deps: Deps) {
  return readGroup(deps.kafka, deps.config.KAFKA_GROUP_ID, deps.config.CONSOLE_INSTANCES);
}

/** The group page's fragment, for each refresh; a failure to read is said in its place. */
export async function groupRefresh(deps: Pick<Deps, 'kafka' | 'config'>): Promise<Html> {
  try {
    return groupFragment(await groupNow(deps as Deps));
  } catch (error) {
    return messageBody(`Kafka did not answer: ${(error as Error).message}`);
  }
}

async function showLetter(deps: Deps, asked: Asked, fields: URLSearchParams, reveal: boolean) {
  const [id] = letterIdsOf(fields);
  const journal = await readLetters(deps.kafka, deps.config.CONSOLE_SCAN_RECORDS);
  const row = id ? named(rows(journal, deps.kafka.topics), [id]).rows[0] : undefined;
  if (!row) {
    const body = messageBody(
      `No dead letter ${id ? `${id.partition}/${id.offset}` : ''} in the dead-letter topic (gone with retention, or never there).`,
    );
    answer(asked, 'Dead letter', 'letters', body, 404);
    return;
  }
  if (reveal) {
    audit(deps.log, asked.identity, 'reveal', {
      letter: idOf(row),
      commandId: row.letter.commandId,
      bizId: row.letter.original.key?.toString(),
    });
  }
  const title = `Dead letter ${row.letter.record.partition}@${row.letter.record.offset}`;
  answer(asked, title, 'letters', letterBody(row, asked.identity, asked.csrf, reveal));
}

function letterFilter(fields: URLSearchParams): LetterFilter {
  return {
    reason: reasonOf(fields),
    type: commandTypeOf(fields),
    since: timeOf(fields, 'since'),
    until: timeOf(fields, 'until'),
  };
}

function filterFields(fields: URLSearchParams): Record<string, string | undefined> {
  return Object.fromEntries(
    ['reason', 'type', 'since', 'until'].map((name) => [name, fields.get(name) ?? undefined]),
  );
}

/** Where to go after signing in: a path of the console, never elsewhere. */
export function nextPath(value: string | undefined): string {
  return value !== undefined && /^\/(?!\/)[\x21-\x7e]*$/.test(value) && !value.includes('\\')
    ? value
    : '/group';
}

export function toLogin(res: ServerResponse, url: URL): void {
  redirect(res, `/login${query({ next: url.pathname + url.search })}`);
}
