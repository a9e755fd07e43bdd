/**
 * Chromium from Debian's packages (the global setup installs it: scripts/tools/
 * install-chromium.sh), driven by playwright-core: no browser of Playwright's own is downloaded.
 * Headless, in a fresh profile, with the flags a closed network needs (no background connections
 * to Google's services, which it refuses). Every run saves its screenshots into docs/console/,
 * which docs/console.md shows (issue 33): a run's pages are the ones the docs show.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { chromiumPath, REPO_ROOT } from '../../support/tools.js';

export const SCREENSHOTS = `${REPO_ROOT}docs/console`;

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  readonly context: BrowserContext;
  page(): Promise<Page>;
  close(): Promise<void>;
}

export async function openBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'console-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 900 },
  });
  // The console asks before it acts; the person at the browser says yes.
  context.on('page', (page) => page.on('dialog', (dialog) => void dialog.accept()));
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    context,
    page: () => context.newPage(),
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The whole page, as docs/console.md shows it. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
}
