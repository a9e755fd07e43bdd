import { contentOf, type DocumentContent } from './document-content.js';

/** `{{name}}`, with optional spaces inside the braces. */
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/**
 * Fills the `{{name}}` placeholders of a template's pages with `values`; a placeholder with no
 * value becomes empty. Values are inserted as they are, never expanded again, so a value that
 * itself contains `{{x}}` stays literal.
 */
export function renderTemplate(pages: string[], values: Record<string, string>): DocumentContent {
  return contentOf(
    pages.map((page) =>
      page.replace(PLACEHOLDER, (_placeholder, name: string) =>
        // Own properties only: a parameter named `constructor` must not reach Object.prototype.
        Object.hasOwn(values, name) ? (values[name] ?? '') : '',
      ),
    ),
  );
}
