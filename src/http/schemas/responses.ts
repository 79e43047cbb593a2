import { errorResponse } from './common.schema.js'

/**
 * Statuses any path can answer before its handler runs: node's parser refuses a malformed request (400) or a
 * request line and headers over 16 KB (431, e.g. a `codes` list of a few thousand codes).
 */
export const edgeResponses = {
  400: errorResponse('Malformed request: a broken request line, header, percent-escape or JSON body'),
  431: errorResponse('Request line and headers exceed the 16 KB limit; send fewer codes per request'),
} as const
