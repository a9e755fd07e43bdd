/** The frame of every page: the navigation, who is signed in, and the one stylesheet and script. */
import { SCRIPT, STYLESHEET } from './assets.js';
import type { Identity } from './auth.js';
import { type Html, html } from './html.js';

export type Section = 'group' | 'contract' | 'failures' | 'letters' | 'none';

const NAV: ReadonlyArray<[Section, string, string]> = [
  ['group', '/group', 'Group'],
  ['contract', '/contract', 'Contract'],
  ['failures', '/failures', 'Failures'],
  ['letters', '/letters', 'Dead letters'],
];

export interface Frame {
  readonly title: string;
  readonly section: Section;
  readonly identity?: Identity | undefined;
  /** The CSRF token the page's forms carry. */
  readonly csrf?: string | undefined;
}

export function page(frame: Frame, body: Html): Html {
  const { title, section, identity, csrf } = frame;
  const nav = identity
    ? NAV.map(
        ([id, href, label]) =>
          html`<a href="${href}"${id === section ? html` aria-current="page"` : ''}>${label}</a>`,
      )
    : [];
  const who = identity
    ? html`<span class="who"><span>${identity.name} · ${identity.role}</span>${
        identity.via === 'session'
          ? html`<form method="post" action="/logout"><input type="hidden" name="csrf" value="${csrf ?? ''}"><button type="submit">Sign out</button></form>`
          : ''
      }</span>`
    : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · signing-bridge console</title>
<link rel="stylesheet" href="${STYLESHEET.path}">
<script src="${SCRIPT.path}" defer></script>
</head>
<body>
<header><a class="brand" href="/group">signing-bridge</a>${nav}${who}</header>
<main>
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`;
}

/** A hidden field with the page's CSRF token, for each form that acts. */
export function csrfField(csrf: string | undefined): Html {
  return html`<input type="hidden" name="csrf" value="${csrf ?? ''}">`;
}
