import { errorResponse } from './common.schema.js'

/**
 * Statuses any path can answer before its handler runs: node's parser refuses a malformed request (400) or a
 * request line and headers over 16 KB (431, e.g. a `codes` list of a few thousand codes); the request guard refuses
 * a `Host` outside ALLOWED_HOSTS, and on a state-changing path what a page of another site could send (403).
 */
export const edgeResponses = {
  400: errorResponse('Malformed request: a broken request line, header, percent-escape or JSON body'),
  403: errorResponse(
    'Refused before routing: a `Host` not in ALLOWED_HOSTS (when set); on a state-changing path also an `Origin` that is neither this service nor in ALLOWED_ORIGINS, a cross-site `Sec-Fetch-Site`, or a form or text/plain body',
  ),
  431: errorResponse('Request line and headers exceed the 16 KB limit; send fewer codes per request'),
} as const
