/** The contract page: a search by bizId (and commandId), and the story it finds. */
import { HISTORY_MAX_RECORDS } from '../../ops/history-book.js';
import { type Html, html, query } from '../html.js';
import { pastRetention, type StoryCommand, type StoryEvent, type StoryRecord } from '../story.js';
import type { CommandAnswer, ReadNote, StoryAnswer } from '../story-search.js';

export interface ContractQuery {
  readonly bizId?: string | undefined;
  readonly commandId?: string | undefined;
  readonly page?: number | undefined;
}

export function searchForm(asked: ContractQuery): Html {
  return html`<form class="search" method="get" action="/contract">
<label>bizId<input type="text" name="bizId" value="${asked.bizId ?? ''}" maxlength="200" autofocus></label>
<label>commandId (optional)<input type="text" name="commandId" value="${asked.commandId ?? ''}" maxlength="200"></label>
<button type="submit">Search</button>
</form>
<p class="muted">A bizId's story is read from its partition of each topic only. A commandId is unique within its bizId only: with a bizId it picks one command of the story; alone, it is looked for among the newest events of every partition.</p>`;
}

export function storyBody(asked: ContractQuery, answer: StoryAnswer, bound: number): Html {
  const { story, notes } = answer;
  const bizId = story.bizId;
  if (answer.noTopics)
    return html`${searchForm(asked)}<div class="error">None of the bridge's topics exists yet.</div>`;
  const shown = asked.commandId
    ? story.commands.filter((command) => command.commandId === asked.commandId)
    : story.commands;
  const partition = answer.partitions.get([...answer.partitions.keys()][0] ?? '') ?? 0;
  const gone = pastRetention(story);
  const older = notes.some((n) => n.older);
  return html`${searchForm(asked)}
<h2>bizId <span class="mono">${bizId}</span> <span class="muted">· partition ${partition}</span></h2>
${ledgerLine(answer)}
${
  story.commands.length === 0
    ? html`<div class="notice">Nothing of bizId <span class="mono">${bizId}</span> in what was read: no command, event or dead letter with this key in its partition ${partition} of each topic.${older ? ' Older records were not read: see below.' : ''}</div>`
    : ''
}
${asked.commandId && shown.length === 0 && story.commands.length > 0 ? html`<div class="notice">No command <span class="mono">${asked.commandId}</span> in the story of ${bizId}. <a href="/contract${query({ bizId })}">The whole story</a>.</div>` : ''}
${gone.length > 0 ? html`<div class="notice">The ledger remembers ${gone.length} command${gone.length === 1 ? '' : 's'} of this bizId that no topic holds any more (past the topics' retention, or older than what was read): <span class="mono">${gone.join(', ')}</span>.</div>` : ''}
${shown.map(commandCard)}
${story.unreadable.length > 0 ? html`<h3>Records that could not be read</h3><ul>${story.unreadable.map((u) => html`<li>${u.at} offset ${u.offset}: ${u.problem}</li>`)}</ul>` : ''}
${answer.dropped > 0 ? html`<div class="notice">${answer.dropped} more records of this bizId past the ${HISTORY_MAX_RECORDS} shown.</div>` : ''}
${readNotes(notes, bound, asked)}`;
}

function ledgerLine(answer: StoryAnswer): Html {
  const ledger = answer.story.ledger;
  if (!ledger)
    return html`<p class="muted">The ledger has no entry of this bizId in what was read (none yet, or it expired after the replay window).</p>`;
  const open = ledger.open.filter((command) => !command.ended);
  return html`<p>Ledger: ${ledger.contractId ? html`contract <span class="mono">${ledger.contractId}</span>, ` : ''}${ledger.done.length} command${ledger.done.length === 1 ? '' : 's'} ended for good${open.length > 0 ? html`, <span class="warn">${open.length} under way</span> (${open.map((o) => html`<span class="mono">${o.commandId}</span>: ${o.steps.join(', ') || 'no step yet'} `)})` : ''}.</p>`;
}

function commandCard(command: StoryCommand): Html {
  const last = command.endings.at(-1);
  const state = last
    ? last.failure
      ? html`<span class="tag bad">${last.type.replace('signingbridge.', '')}</span>`
      : html`<span class="tag good">${last.type.replace('signingbridge.', '')}</span>`
    : html`<span class="tag">no ending yet</span>`;
  return html`<section class="command" data-command="${command.commandId}">
<h3><span>${command.type ?? 'command'}</span><span class="mono">${command.commandId}</span>${state}</h3>
<table><thead><tr><th>time</th><th>what</th><th>step</th><th>platform call</th><th>code</th><th>ce_id / where</th></tr></thead>
<tbody>${command.items.map(itemRow)}</tbody></table>
</section>`;
}

function itemRow(item: StoryEvent | StoryRecord): Html {
  if (item.kind === 'event') {
    const tone = item.failure ? 'bad' : item.terminal ? 'good' : '';
    return html`<tr><td class="mono">${item.at}</td><td class="${tone}">${item.type.replace('signingbridge.', '')}${item.terminal ? ' (end)' : ''}<div class="muted">${item.detail}</div></td><td>${item.step ?? ''}</td><td class="mono">${item.call?.operation ?? ''}</td><td class="mono ${item.call && item.call.code !== '0' ? 'bad' : ''}">${item.call?.code ?? ''}</td><td class="mono">${item.ceId}</td></tr>`;
  }
  if (item.kind === 'command') {
    return html`<tr><td class="mono">${item.at}</td><td>command record</td><td></td><td></td><td></td><td class="mono">${item.topic} ${item.partition}@${item.offset}</td></tr>`;
  }
  return html`<tr><td class="mono">${item.at}</td><td class="warn">dead letter<div class="muted">${item.errorMessage ?? ''}</div>${item.replayedAt ? html`<div>sent back ${item.replayedAt}</div>` : ''}</td><td></td><td></td><td class="mono bad">${item.errorCode ?? ''}</td><td class="mono"><a href="/letters/view${query({ letter: `${item.partition}/${item.offset}` })}">${item.topic} ${item.partition}@${item.offset}</a></td></tr>`;
}

function readNotes(notes: readonly ReadNote[], bound: number, asked: ContractQuery): Html {
  const older = notes.some((n) => n.older);
  const retention = notes.filter((n) => n.retentionFrom !== undefined);
  const unreadable = notes.filter((n) => Object.keys(n.unreadable).length > 0);
  const rows = notes.map(
    (n) =>
      html`<tr><td class="mono">${n.topic}</td><td>${n.role}</td><td class="num">${n.partition}</td><td class="num">${n.from}–${n.to}</td><td class="num">${n.records}</td><td>${n.older ? html`<span class="warn">older records not read</span>` : n.retentionFrom ? html`<span class="warn">from ${n.retentionFrom}: older ones are past retention</span>` : 'from its first record'}</td></tr>`,
  );
  return html`<h2>What was read</h2>
${retention.length > 0 ? html`<div class="notice">History before what these topics keep is gone: ${retention.map((n) => html`${n.topic} keeps records from ${n.retentionFrom ?? ''}${n.retentionMs ? ` (retention.ms ${n.retentionMs})` : ''}; `)}anything of this bizId before that is past the topics' retention.</div>` : ''}
${older ? html`<div class="notice">At most the newest ${bound} records of each partition are read. <a href="/contract${query({ bizId: asked.bizId, commandId: asked.commandId, page: (asked.page ?? 0) + 1 })}">Read the ${bound} before them</a>.</div>` : ''}
${unreadable.length > 0 ? html`<div class="error">Record batches compressed with a codec the console does not read were skipped: ${unreadable.map((n) => html`${n.topic}: ${JSON.stringify(n.unreadable)} `)}</div>` : ''}
<table><thead><tr><th>topic</th><th>holds</th><th>partition</th><th>offsets read</th><th>records read</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function commandMatches(asked: ContractQuery, answer: CommandAnswer): Html {
  const list =
    answer.matches.length === 0
      ? html`<div class="notice">No event with commandId <span class="mono">${asked.commandId ?? ''}</span> among the newest ${answer.perPartition} events of each of the ${answer.partitions} partitions of the events topic (${answer.records} read). Give its bizId too to read its whole story.</div>`
      : html`<table><thead><tr><th>bizId</th><th>its latest event with this commandId</th><th>time</th></tr></thead><tbody>${answer.matches.map(
          (m) =>
            html`<tr><td><a class="mono" href="/contract${query({ bizId: m.bizId, commandId: asked.commandId })}">${m.bizId}</a></td><td>${m.type}</td><td class="mono">${m.time}</td></tr>`,
        )}</tbody></table>`;
  return html`${searchForm(asked)}<h2>commandId <span class="mono">${asked.commandId ?? ''}</span></h2>
<p class="muted">Looked for among the newest ${answer.perPartition} events of each of the ${answer.partitions} partitions of the events topic (${answer.records} read).</p>${list}`;
}
