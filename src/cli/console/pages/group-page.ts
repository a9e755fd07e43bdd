/** The group page: what the consumer group and each instance are doing, refreshed live. */
import type { InstanceStatus } from '../../../observability/status.js';
import type { GroupView } from '../group.js';
import { type Html, html, query } from '../html.js';

export function groupPage(view: GroupView | undefined, problem?: string): Html {
  return html`<p class="muted">Refreshed as long as this page is open: <span id="live-state">…</span></p>
<div id="group" data-live="/group/live">${view ? groupFragment(view) : html`<div class="error">${problem ?? ''}</div>`}</div>`;
}

const BREAKER_ORDER = { open: 2, 'half-open': 1, closed: 0 } as const;

/** What the page shows and each refresh replaces. */
export function groupFragment(view: GroupView): Html {
  const { statuses } = view;
  const worst = statuses.reduce<InstanceStatus['breaker'] | undefined>(
    (found, { breaker }) =>
      !found || BREAKER_ORDER[breaker.state] > BREAKER_ORDER[found.state] ? breaker : found,
    undefined,
  );
  const sum = (pick: (status: InstanceStatus) => number) =>
    statuses.reduce((total, status) => total + pick(status), 0);
  const ready = statuses.filter((status) => status.ready).length;
  const budget = statuses[0]?.budget.groupRps;
  return html`<div class="cards">
${card('Group', view.state, `${view.members.length} members · ${view.groupId}`, view.state === 'Stable' ? 'good' : 'warn')}
${card('Lag', String(view.totalLag), 'commands written, not yet done', view.totalLag > 0 ? 'warn' : '')}
${card('In flight', String(sum((s) => s.commands.inFlight)), `${sum((s) => s.commands.pending)} queued, running or waiting`, '')}
${card(
  'Circuit breaker',
  worst?.state ?? 'unknown',
  worst?.cause
    ? `outage: ${worst.cause}`
    : statuses.length === 0
      ? 'no instance answered'
      : 'the platform answers',
  worst?.state === 'closed' ? 'good' : 'bad',
)}
${card(
  'Platform budget',
  budget === undefined ? '?' : budget === 0 ? 'unlimited' : `${budget}/s`,
  `shares ${round(sum((s) => s.budget.shareRps))}/s · in force ${round(sum((s) => s.budget.rateInForceRps))}/s · ${sum((s) => s.budget.throttled)} × 429`,
  sum((s) => s.budget.throttled) > 0 ? 'warn' : '',
)}
${card('Ready', `${ready} of ${statuses.length}`, 'instances consuming', ready === statuses.length && ready > 0 ? 'good' : 'bad')}
${card('Ended outcome unknown', String(sum((s) => s.totals.outcomesUnknown)), 'since the instances started: see Failures', sum((s) => s.totals.outcomesUnknown) > 0 ? 'warn' : '')}
${card('Dead letters', String(sum((s) => s.totals.deadLetters)), 'since the instances started', '')}
</div>
<h2>Members</h2>
${membersTable(view)}
${problems(view)}
<h2>Lag per partition</h2>
${lagTable(view)}
<h2>Classes</h2>
${classesTable(statuses)}
<h2>Hot keys</h2>
${hotKeys(statuses)}
<p class="muted">As of ${view.at}.</p>`;
}

function card(label: string, figure: string, detail: string, tone: string): Html {
  return html`<div class="card"><div class="muted">${label}</div><div class="figure ${tone}">${figure}</div><div class="muted">${detail}</div></div>`;
}

function membersTable(view: GroupView): Html {
  if (view.members.length === 0)
    return html`<p class="warn">The group has no member: no instance is consuming.</p>`;
  const rows = view.members.map((member) => {
    const s = member.status;
    return html`<tr>
<td class="mono">${member.instance?.slice(0, 8) ?? member.memberId.slice(-12)}</td>
<td>${s?.host ?? member.host}</td>
<td class="mono">${member.partitions.join(', ')}</td>
<td>${s ? readiness(s) : html`<span class="warn">no status</span>`}</td>
<td class="num">${s ? `${s.commands.inFlight} / ${s.commands.inFlightLimit}` : ''}</td>
<td class="num">${s?.commands.pending ?? ''}</td>
<td>${s ? breaker(s) : ''}</td>
<td class="num">${s ? `${round(s.budget.shareRps)} / ${round(s.budget.rateInForceRps)}` : ''}</td>
<td class="num">${s?.budget.throttled ?? ''}</td>
<td>${s?.paused.join(', ') ?? ''}</td>
</tr>`;
  });
  return html`<table><thead><tr><th>instance</th><th>host</th><th>partitions</th><th>ready</th><th>in flight / limit</th><th>pending</th><th>breaker</th><th>share / in force (req/s)</th><th>429s</th><th>paused</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function readiness(status: InstanceStatus): Html {
  if (status.ready) return html`<span class="good">ready</span>`;
  const why = status.notReady.map((reason) => html`<div class="muted">${reason}</div>`);
  return html`<span class="bad">${status.kafkaConnected ? 'not ready' : 'Kafka lost'}</span>${why}`;
}

function breaker(status: InstanceStatus): Html {
  const { state, cause } = status.breaker;
  if (state === 'closed') return html`<span class="good">closed</span>`;
  return html`<span class="bad">${state}</span>${cause ? html` <span class="tag bad">${cause}</span>` : ''}`;
}

function problems(view: GroupView): Html {
  const outside = view.outside.map(
    (status) =>
      html`<li><span class="mono">${status.instance.slice(0, 8)}</span> on ${status.host}: answers, but is no member of the group (${status.ready ? 'ready' : 'not ready'})</li>`,
  );
  const unreachable = view.unreachable.map(
    (answer) => html`<li><span class="mono">${answer.url}</span>: ${answer.problem ?? ''}</li>`,
  );
  if (outside.length + unreachable.length === 0) return html``;
  return html`<div class="notice"><ul>${outside}${unreachable}</ul></div>`;
}

function lagTable(view: GroupView): Html {
  if (view.lag.length === 0) return html`<p class="muted">No command topic yet.</p>`;
  const types = [...new Set(view.lag.flatMap((row) => Object.keys(row.byType)))];
  const rows = view.lag.map(
    (row) =>
      html`<tr><td class="num">${row.partition}</td><td class="mono">${row.heldBy?.slice(0, 8) ?? html`<span class="warn">nobody</span>`}</td>${types.map(
        (type) => html`<td class="num">${row.byType[type as keyof typeof row.byType] ?? 0}</td>`,
      )}<td class="num ${row.total > 0 ? 'warn' : ''}">${row.total}</td></tr>`,
  );
  return html`<table><thead><tr><th>partition</th><th>held by</th>${types.map((t) => html`<th>${t}</th>`)}<th>total</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function classesTable(statuses: readonly InstanceStatus[]): Html {
  const classes = new Map<string, { running: number; backlog: number }>();
  for (const status of statuses) {
    for (const { name, running, backlog } of status.classes) {
      const row = classes.get(name) ?? { running: 0, backlog: 0 };
      row.running += running;
      row.backlog += backlog;
      classes.set(name, row);
    }
  }
  if (classes.size === 0) return html`<p class="muted">No instance reported its classes.</p>`;
  const rows = [...classes].map(
    ([name, row]) =>
      html`<tr><td>${name}</td><td class="num">${row.running}</td><td class="num">${row.backlog}</td></tr>`,
  );
  return html`<table><thead><tr><th>class</th><th>running</th><th>queued, running or waiting</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function hotKeys(statuses: readonly InstanceStatus[]): Html {
  const byType = new Map<string, { longest: number; heldBack: number }>();
  for (const status of statuses) {
    for (const { type, longest, heldBack } of status.hotKeys) {
      const row = byType.get(type) ?? { longest: 0, heldBack: 0 };
      row.longest = Math.max(row.longest, longest);
      row.heldBack += heldBack;
      byType.set(type, row);
    }
  }
  const held = statuses.flatMap((status) => status.heldBack);
  const rows = [...byType]
    .filter(([, row]) => row.longest > 0 || row.heldBack > 0)
    .map(
      ([type, row]) =>
        html`<tr><td>${type}</td><td class="num">${row.longest}</td><td class="num">${row.heldBack}</td></tr>`,
    );
  const table =
    rows.length === 0
      ? html`<p class="muted">No bizId holds more than a few commands.</p>`
      : html`<table><thead><tr><th>type</th><th>most commands one bizId holds</th><th>bizIds held back</th></tr></thead><tbody>${rows}</tbody></table>`;
  const list =
    held.length === 0
      ? ''
      : html`<p>Held back now (their next commands wait in Kafka): ${held.map(
          (h) =>
            html`<a href="/contract${query({ bizId: h.bizId })}" class="mono">${h.bizId}</a> <span class="muted">(${h.type}, partition ${h.partition})</span> `,
        )}</p>`;
  return html`${table}${list}`;
}

function round(value: number): string {
  return String(Math.round(value * 100) / 100);
}
