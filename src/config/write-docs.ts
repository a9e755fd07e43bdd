/** `npm run docs:config`: regenerates docs/configuration.md from the CONFIG table. */
import { writeFileSync } from 'node:fs';
import { CONFIG_DOC_PATH, renderConfigDoc } from './docs.js';

writeFileSync(new URL(`../../${CONFIG_DOC_PATH}`, import.meta.url), renderConfigDoc());
console.log(`wrote ${CONFIG_DOC_PATH}`);
