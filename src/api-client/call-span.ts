/**
 * One HTTP attempt as an OpenTelemetry client span, after the HTTP semantic conventions: named
 * by method and path, with the URL (the client's URLs carry no query), the server, the status and
 * the resend count of a retry. It is a child of whatever span is active where the call was made
 * (a Kafka command's, in the bridge); without a tracer nothing is made.
 */
import { context, type Span, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import type { SigningBridgeError } from '../errors.js';
import { PlatformRejected } from '../errors.js';

const METHOD = 'POST';

export interface AttemptSpan {
  end(report: { httpStatus?: number; error?: SigningBridgeError<unknown> }): void;
}

export const UNTRACED: AttemptSpan = { end: () => {} };

export function startAttemptSpan(
  tracer: Tracer | undefined,
  call: { readonly baseUrl: URL; readonly path: string; readonly operation: string },
  attempt: number,
): AttemptSpan {
  if (!tracer) return UNTRACED;
  const { baseUrl: url, path, operation } = call;
  const span = tracer.startSpan(
    `${METHOD} ${path}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': METHOD,
        'url.full': `${url.origin}${path}`,
        'url.template': path,
        'server.address': url.hostname,
        'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
        'signing_platform.operation': operation,
        ...(attempt > 0 ? { 'http.request.resend_count': attempt } : {}),
      },
    },
    context.active(),
  );
  return { end: (report) => endSpan(span, report) };
}

function endSpan(
  span: Span,
  { httpStatus, error }: { httpStatus?: number; error?: SigningBridgeError<unknown> },
): void {
  if (httpStatus !== undefined) span.setAttribute('http.response.status_code', httpStatus);
  if (error instanceof PlatformRejected) {
    span.setAttribute('signing_platform.code', error.details.platformCode);
  }
  if (error !== undefined) {
    // A status the platform answered says more than our error's name; a refusal in a 200 has
    // the error's code.
    const statusError = httpStatus !== undefined && httpStatus >= 400;
    span.setAttribute('error.type', statusError ? String(httpStatus) : error.code);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.code });
  }
  span.end();
}
