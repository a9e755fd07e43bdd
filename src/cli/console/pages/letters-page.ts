/** The dead letters pages: the list with its filter, one dead letter, and what sending back did. */
import { headerText } from '../../../kafka/index.js';
import { maskPersonalData } from '../../../personal-data.js';
import { DEAD_LETTER_REASONS } from '../../../producers/dead-letter.js';
import { COMMAND_TYPES } from '../../../schemas/messages/index.js';
import type { Identity } from '../auth.js';
import { type Html, html, query } from '../html.js';
import { csrfField } from '../layout.js';
import { failedAt, idOf, type LetterFilter, type LetterRow, type SendBack } from '../letters.js';
import { maskedValue, revealedValue, TEXT_SHOWN_MAX } from '../mask.js';

/** Rows listed at most; the rest are counted. */
export const LETTERS_SHOWN = 500;

export interface LetterList {
  readonly rows: readonly LetterRow[];
  /** Dead letters past what one read holds (DLQ_LIMITS), counted only. */
  readonly beyond: number;
  readonly filter: LetterFilter;
  /** The filter as the query string had it, to send with "all matching". */
  readonly asked: Readonly<Record<string, string | undefined>>;
}

export function lettersBody(
  list: LetterList,
  identity: Identity,
  csrf: string,
  limit: number,
): Html {
  const operator = identity.role === 'operator';
  const waiting = list.rows.filter((row) => !row.replayed);
  const shown = list.rows.slice(0, LETTERS_SHOWN);
  const select = (name: string, values: readonly string[], chosen: string | undefined) =>
    html`<select name="${name}"><option value="">any</option>${values.map(
      (v) => html`<option value="${v}"${v === chosen ? html` selected` : ''}>${v}</option>`,
    )}</select>`;
  const reasons = [
    ...new Set([...DEAD_LETTER_REASONS, ...list.rows.flatMap((r) => r.letter.errorCode ?? [])]),
  ];
  const rows = shown.map(
    (row) => html`<tr data-letter="${idOf(row)}">
<td>${operator && !row.replayed ? html`<input type="checkbox" name="letter" value="${idOf(row)}" form="send-selected" aria-label="select ${idOf(row)}">` : ''}</td>
<td class="mono">${new Date(failedAt(row)).toISOString()}</td>
<td class="mono"><a href="/letters/view${query({ letter: idOf(row) })}">${row.letter.record.partition}@${row.letter.record.offset}</a></td>
<td class="mono">${row.letter.errorCode ?? '?'}</td>
<td>${row.type ?? row.letter.source.topic ?? '?'}</td>
<td class="mono">${row.letter.original.key ? html`<a href="/contract${query({ bizId: row.letter.original.key.toString() })}">${row.letter.original.key.toString()}</a>` : ''}</td>
<td class="mono">${row.letter.commandId ?? ''}</td>
<td>${row.replayed ? html`<span class="muted">sent back</span>` : html`<span class="warn">waiting</span>`}${row.sentBack > 0 ? html` <span class="tag${row.sentBack >= limit ? ' bad' : ''}">record sent back ${row.sentBack}×</span>` : ''}</td>
</tr>`,
  );
  return html`<form class="filter" method="get" action="/letters">
<label>Reason${select('reason', reasons, list.filter.reason)}</label>
<label>Command type${select('type', COMMAND_TYPES, list.filter.type)}</label>
<label>Since<input type="text" name="since" value="${list.asked.since ?? ''}" placeholder="2h, 2026-05-01"></label>
<label>Until<input type="text" name="until" value="${list.asked.until ?? ''}" placeholder="30m, 2026-05-02T10:00Z"></label>
<button type="submit">Filter</button>
</form>
<p>${list.rows.length} dead letters match, ${waiting.length} not sent back yet.${list.rows.length > LETTERS_SHOWN ? ` The first ${LETTERS_SHOWN} are listed.` : ''}</p>
${list.beyond > 0 ? html`<div class="notice">${list.beyond} more dead letters past what one read holds: narrow the filter by time.</div>` : ''}
${
  operator
    ? html`<div class="actions">
<form id="send-selected" method="post" action="/letters/send" data-confirm="Send the selected dead letters back to their topics?">${csrfField(csrf)}<label><span><input type="checkbox" data-select-all> select all listed</span></label><button type="submit">Send the selected back</button></form>
<form method="post" action="/letters/send" data-confirm="Send all ${waiting.length} matching dead letters back to their topics?">${csrfField(csrf)}<input type="hidden" name="all" value="matching">${Object.entries(list.asked).map(([name, value]) => (value ? html`<input type="hidden" name="${name}" value="${value}">` : ''))}<button type="submit" class="secondary">Send all ${waiting.length} matching back</button></form>
</div>`
    : html`<p class="muted">Only an operator sends dead letters back.</p>`
}
<table><thead><tr><th></th><th>failed at</th><th>where</th><th>reason</th><th>type</th><th>bizId</th><th>commandId</th><th>state</th></tr></thead><tbody>${rows}</tbody></table>
<p class="muted">Sent back as <code>signing-bridge dlq replay</code> does: the record untouched to its topic, and a marker in the same Kafka transaction, so each is sent back once. A record already sent back ${limit} times is not sent again (CONSOLE_REPLAY_LIMIT).</p>`;
}

export function letterBody(
  row: LetterRow,
  identity: Identity,
  csrf: string,
  revealed: boolean,
): Html {
  const { letter } = row;
  const operator = identity.role === 'operator';
  const headers = Object.entries(letter.headers).map(([name]) => {
    const text = headerText(letter.headers, name) ?? '';
    const shown = revealed
      ? text
      : maskPersonalData(text.length > TEXT_SHOWN_MAX ? `${text.slice(0, TEXT_SHOWN_MAX)}…` : text);
    return html`<tr><td class="mono">${name}</td><td class="mono">${shown}</td></tr>`;
  });
  return html`<p><a href="/letters">All dead letters</a></p>
<table><tbody>
<tr><th>where</th><td class="mono">${letter.record.topic} ${letter.record.partition}@${letter.record.offset}</td></tr>
<tr><th>failed at</th><td class="mono">${letter.failedAt ?? ''}</td></tr>
<tr><th>reason</th><td class="mono">${letter.errorCode ?? ''}</td></tr>
<tr><th>message</th><td>${maskPersonalData(letter.errorMessage ?? '')}</td></tr>
<tr><th>from</th><td class="mono">${letter.source.topic ?? '?'} ${letter.source.partition ?? '?'}@${letter.source.offset ?? '?'}</td></tr>
<tr><th>bizId</th><td class="mono">${letter.original.key ? html`<a href="/contract${query({ bizId: letter.original.key.toString() })}">${letter.original.key.toString()}</a>` : '(no key)'}</td></tr>
<tr><th>commandId</th><td class="mono">${letter.commandId ?? ''}</td></tr>
<tr><th>state</th><td>${row.replayed ? 'sent back' : 'waiting'}${row.sentBack > 0 ? `; its record was sent back ${row.sentBack} times` : ''}${letter.truncated.length > 0 ? `; cut to fit (${letter.truncated.join(', ')})` : ''}</td></tr>
</tbody></table>
<h2>Value ${revealed ? html`<span class="tag bad">revealed: personal data shown, and logged</span>` : html`<span class="tag">personal data masked</span>`}</h2>
<pre>${revealed ? revealedValue(letter.original.value) : maskedValue(letter.original.value)}</pre>
<h2>Headers</h2>
<table><tbody>${headers}</tbody></table>
${
  operator
    ? html`<div class="actions">${
        revealed
          ? ''
          : html`<form method="post" action="/letters/reveal">${csrfField(csrf)}<input type="hidden" name="letter" value="${idOf(row)}"><button type="submit" class="secondary">Reveal the masked fields (logged)</button></form>`
      }${
        row.replayed
          ? ''
          : html`<form method="post" action="/letters/send" data-confirm="Send this dead letter back to ${letter.source.topic ?? 'its topic'}?">${csrfField(csrf)}<input type="hidden" name="letter" value="${idOf(row)}"><button type="submit">Send it back</button></form>`
      }</div>`
    : ''
}`;
}

export function sendBackBody(result: SendBack): Html {
  const { replayed, refused, missing } = result;
  return html`${replayed.length > 0 ? html`<div class="ok">${replayed.length} dead letter${replayed.length === 1 ? '' : 's'} sent back.</div>` : html`<div class="notice">Nothing was sent back.</div>`}
${
  replayed.length > 0
    ? html`<table><thead><tr><th>dead letter</th><th>commandId</th><th>sent to</th></tr></thead><tbody>${replayed.map(
        ({ letter, to }) =>
          html`<tr data-sent="${letter.record.partition}/${letter.record.offset}"><td class="mono">${letter.record.partition}@${letter.record.offset}</td><td class="mono">${letter.commandId ?? ''}</td><td class="mono">${to.topic} ${to.partition}@${to.offset}</td></tr>`,
      )}</tbody></table>`
    : ''
}
${
  refused.length > 0
    ? html`<h2>Not sent back</h2><table><thead><tr><th>dead letter</th><th>commandId</th><th>why</th></tr></thead><tbody>${refused.map(
        ({ entry, reason }) =>
          html`<tr data-refused="${entry.letter.record.partition}/${entry.letter.record.offset}"><td class="mono">${entry.letter.record.partition}@${entry.letter.record.offset}</td><td class="mono">${entry.letter.commandId ?? ''}</td><td>${reason}</td></tr>`,
      )}</tbody></table>`
    : ''
}
${missing.length > 0 ? html`<div class="notice">Not found (gone with retention, or never there): ${missing.join(', ')}</div>` : ''}
<p><a href="/letters">Back to the dead letters</a></p>`;
}
