/**
 * The fixed limits of a document's download, apart from the download itself (download.ts), so
 * that reading them (the configuration's defaults and notes) does not load the HTTP client.
 */

/** Redirects the service's downloads follow, each to a URL that passes the same checks. */
export const MAX_REDIRECTS = 3;
/** A download's deadline, redirects included. */
export const DOWNLOAD_TIMEOUT_MS = 30_000;
