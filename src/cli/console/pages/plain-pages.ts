/** The pages without data: signing in, and every refusal or failure said plainly. */
import { type Html, html } from '../html.js';

export function loginBody(next: string, problem?: string): Html {
  return html`${problem ? html`<div class="error">${problem}</div>` : ''}
<form class="search" method="post" action="/login">
<input type="hidden" name="next" value="${next}">
<label>Your console token<input type="password" name="token" autocomplete="current-password" autofocus required></label>
<button type="submit">Sign in</button>
</form>
<p class="muted">Tokens are handed out by whoever runs the console (CONSOLE_TOKENS_FILE); each names its holder, and whether they may act on dead letters.</p>`;
}

export function messageBody(message: string, detail?: string): Html {
  return html`<div class="error">${message}</div>${detail ? html`<p class="muted">${detail}</p>` : ''}<p><a href="/group">Back to the group page</a></p>`;
}
