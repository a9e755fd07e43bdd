/**
 * The console's one stylesheet and one script, served as files from its own origin under names
 * that carry their hash (cached for good, a new name with each change): the pages have no inline
 * script or style, so the Content-Security-Policy allows 'self' and nothing else. The script only
 * keeps the group page live (server-sent events), ticks "select all" and asks before an action.
 */
import { createHash } from 'node:crypto';

const CSS = `
:root { color-scheme: light; --fg: #1d2330; --muted: #5b6475; --line: #d8dde6; --bad: #b3261e;
  --good: #1b7f3b; --warn: #9a6700; --bg: #f7f8fa; --accent: #30638e; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; align-items: center; gap: 1.5rem; padding: .6rem 1.2rem; background: #1d2330; color: #fff; }
header a { color: #dfe6f0; text-decoration: none; }
header a[aria-current="page"] { color: #fff; font-weight: 600; border-bottom: 2px solid #edae49; }
header .brand { font-weight: 700; color: #fff; }
header .who { margin-left: auto; display: flex; gap: .8rem; align-items: center; color: #c8d0dc; }
header form { margin: 0; }
main { padding: 1rem 1.2rem 3rem; max-width: 1400px; }
h1 { font-size: 1.35rem; margin: .2rem 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.6rem 0 .6rem; }
h3 { font-size: 1rem; margin: 1rem 0 .4rem; }
table { border-collapse: collapse; background: #fff; margin: .4rem 0 1rem; }
th, td { border: 1px solid var(--line); padding: .3rem .55rem; text-align: left; vertical-align: top; }
th { background: #eef1f5; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
pre { background: #fff; border: 1px solid var(--line); padding: .7rem; overflow: auto; max-height: 32rem; }
.muted { color: var(--muted); }
.bad { color: var(--bad); font-weight: 600; }
.good { color: var(--good); font-weight: 600; }
.warn { color: var(--warn); font-weight: 600; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .8rem 1rem; margin: .6rem 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: .6rem; }
.figure { font-size: 1.5rem; font-weight: 700; }
.notice { border-left: 4px solid var(--warn); background: #fff8e6; padding: .5rem .8rem; margin: .6rem 0; }
.error { border-left: 4px solid var(--bad); background: #fdecea; padding: .6rem .9rem; margin: .6rem 0; }
.ok { border-left: 4px solid var(--good); background: #e9f6ee; padding: .6rem .9rem; margin: .6rem 0; }
form.search, form.filter { display: flex; flex-wrap: wrap; gap: .6rem; align-items: end; margin: .4rem 0 1rem; }
label { display: flex; flex-direction: column; gap: .15rem; font-size: 12.5px; color: var(--muted); }
input[type=text], input[type=password], select { padding: .35rem .5rem; border: 1px solid #b9c1cd; border-radius: 4px; font: inherit; min-width: 14rem; }
button { padding: .4rem .9rem; border: 1px solid var(--accent); background: var(--accent); color: #fff; border-radius: 4px; font: inherit; cursor: pointer; }
button.secondary { background: #fff; color: var(--accent); }
button.danger { background: var(--bad); border-color: var(--bad); }
header button { background: transparent; border-color: #6c7890; color: #dfe6f0; padding: .2rem .6rem; }
.command { background: #fff; border: 1px solid var(--line); border-radius: 6px; margin: .8rem 0; padding: .4rem .9rem .8rem; }
.command h3 { display: flex; gap: .8rem; align-items: baseline; flex-wrap: wrap; }
.tag { display: inline-block; padding: 0 .4rem; border-radius: 3px; background: #eef1f5; font-size: 12px; }
.tag.bad { background: #fdecea; }
.tag.good { background: #e9f6ee; }
svg.chart { background: #fff; border: 1px solid var(--line); max-width: 100%; height: auto; }
svg.chart text { font-size: 11px; fill: #333; }
#live-state { font-size: 12px; }
.actions { display: flex; flex-wrap: wrap; gap: .6rem; align-items: end; margin: .6rem 0; }
.actions form { margin: 0; display: flex; gap: .6rem; align-items: end; }
`;

const JS = `'use strict';
(function () {
  var live = document.querySelector('[data-live]');
  var state = document.getElementById('live-state');
  if (live && window.EventSource) {
    var source = new EventSource(live.getAttribute('data-live'));
    source.addEventListener('group', function (event) {
      live.innerHTML = event.data;
      if (state) state.textContent = 'live';
    });
    source.addEventListener('error', function () {
      if (state) state.textContent = 'reconnecting…';
    });
  }
  document.querySelectorAll('[data-select-all]').forEach(function (box) {
    box.addEventListener('change', function () {
      var form = box.closest('form');
      document.querySelectorAll('input[name="letter"]').forEach(function (each) {
        if (form && each.form === form) each.checked = box.checked;
      });
    });
  });
  document.querySelectorAll('form[data-confirm]').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
    });
  });
})();
`;

function asset(body: string, type: string, name: string) {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { path: `/static/${name}-${hash}.${type === 'text/css' ? 'css' : 'js'}`, body, type };
}

export const STYLESHEET = asset(CSS, 'text/css', 'console');
export const SCRIPT = asset(JS, 'text/javascript', 'console');
export const ASSETS = new Map([STYLESHEET, SCRIPT].map((one) => [one.path, one]));
