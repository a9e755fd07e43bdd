/** The failures page: failure events over time by code and by command type, and the commands to settle. */
import { barChart } from '../chart.js';
import type { FailureRead } from '../failure-search.js';
import { UNKNOWN_MAX } from '../failures.js';
import { type Html, html, query } from '../html.js';
import { WINDOWS, type WindowName } from '../inputs.js';

export function failuresBody(window: WindowName, read: FailureRead, bound: number): Html {
  const { tally } = read;
  const unknown = tally.unknownOutcomes();
  const open = unknown.filter((u) => !u.settledBy);
  const choices = Object.keys(WINDOWS).map(
    (name) =>
      html`<option value="${name}"${name === window ? html` selected` : ''}>last ${name}</option>`,
  );
  return html`<form class="filter" method="get" action="/failures"><label>Window<select name="window">${choices}</select></label><button type="submit">Show</button></form>
<p>${tally.total} failure events in the last ${window}.</p>
<h2>By code</h2>
${barChart(tally.chart('code'), 'failure events by code')}
<h2>By command type</h2>
${barChart(tally.chart('type'), 'failure events by command type')}
<h2>Ended "outcome unknown": ${open.length} to settle</h2>
<p class="muted">A call that changes something was sent and nothing said what became of it; the bridge did not call again. Look at the contract on the platform; if the change is missing, send the command again with the same commandId (it then runs again). One is settled here once a later ending of the same command follows it.</p>
${
  unknown.length === 0
    ? html`<p class="good">None in this window.</p>`
    : html`<table><thead><tr><th>ended</th><th>bizId</th><th>commandId</th><th>type</th><th>step</th><th>state</th></tr></thead><tbody>${unknown.map(
        (u) =>
          html`<tr data-unknown="${u.commandId}"><td class="mono">${u.at}</td><td><a class="mono" href="/contract${query({ bizId: u.bizId, commandId: u.commandId })}">${u.bizId}</a></td><td class="mono">${u.commandId}</td><td>${u.commandType}</td><td>${u.step ?? ''}</td><td>${
            u.settledBy
              ? html`<span class="good">settled</span> <span class="muted">${u.settledBy.type.replace('signingbridge.', '')} at ${u.settledBy.at}</span>`
              : html`<span class="warn">to settle</span>`
          }</td></tr>`,
      )}</tbody></table>`
}
${tally.unknownBeyond > 0 ? html`<div class="notice">${tally.unknownBeyond} more past the ${UNKNOWN_MAX} listed: choose a shorter window.</div>` : ''}
<p class="muted">Read ${read.records} events of the ${read.partitions} partitions of the events topic, at most the newest ${bound} of each${read.cut > 0 ? html`; <span class="warn">in ${read.cut} partitions the window holds more, and its oldest part was not read</span>` : ''}.</p>`;
}
