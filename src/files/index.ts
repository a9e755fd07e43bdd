export { DOWNLOAD_TIMEOUT_MS, MAX_REDIRECTS } from './download.js';
export { createFileLoader, type FileLoader, type FilePolicy } from './file-loader.js';
