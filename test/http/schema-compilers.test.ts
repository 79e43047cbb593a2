import { describe, expect, it } from 'vitest'
import { sharedSchemaCompilers } from '../../src/http/schema-compilers.js'

/** The validator factory as fastify calls it at run time: a route definition in, a validate function out. */
type ValidatorFactory = (
  externalSchemas: unknown,
  options: { customOptions: Record<string, unknown> },
) => (route: { schema: unknown; httpPart: string }) => (data: unknown) => boolean

const route = (schema: unknown) => ({ method: 'GET', url: '/x', httpStatus: '200', schema })
const externals = { Item: { $id: 'Item', type: 'object', properties: { n: { type: 'integer' } } } }

describe('shared schema compilers', () => {
  it('compiles a response schema once per process, for any number of apps', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' }, item: { $ref: 'Item#' } } }
    const firstApp = sharedSchemaCompilers.buildSerializer(externals, {})
    const secondApp = sharedSchemaCompilers.buildSerializer(structuredClone(externals), {})
    const serialize = firstApp(route(schema))
    expect(secondApp(route(schema))).toBe(serialize)
    expect(serialize({ a: 'x', item: { n: 2, extra: 1 }, dropped: true })).toBe('{"a":"x","item":{"n":2}}')
  })

  it('compiles once for a copy of the schema (the routes write their response maps inline, anew for each app)', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' }, item: { $ref: 'Item#' } } }
    const serialize = sharedSchemaCompilers.buildSerializer(externals, {})(route(schema))
    const sameShape = sharedSchemaCompilers.buildSerializer(externals, {})(route(structuredClone(schema)))
    expect(sameShape).toBe(serialize)
  })

  it('compiles again for another schema, other external schemas or other options', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' }, item: { $ref: 'Item#' } } }
    const serialize = sharedSchemaCompilers.buildSerializer(externals, {})(route(schema))
    const otherSchema = { type: 'object', properties: { b: { type: 'string' }, item: { $ref: 'Item#' } } }
    const otherShape = sharedSchemaCompilers.buildSerializer(externals, {})(route(otherSchema))
    expect(otherShape).not.toBe(serialize)
    expect(otherShape({ a: 'x', b: 'y' })).toBe('{"b":"y"}')
    const otherItem = { Item: { $id: 'Item', type: 'object', properties: { m: { type: 'integer' } } } }
    const otherExternals = sharedSchemaCompilers.buildSerializer(otherItem, {})(route(schema))
    expect(otherExternals).not.toBe(serialize)
    expect(otherExternals({ a: 'x', item: { n: 2, m: 3 } })).toBe('{"a":"x","item":{"m":3}}')
    const otherOptions = sharedSchemaCompilers.buildSerializer(externals, { rounding: 'ceil' })(route(schema))
    expect(otherOptions).not.toBe(serialize)
  })

  it('compiles a request validator once for a copy of its schema, and again for another schema or ajv options', () => {
    const options = { customOptions: { coerceTypes: true, removeAdditional: true } }
    const validatorOf = (schema: unknown, opts = options) =>
      (sharedSchemaCompilers.buildValidator as unknown as ValidatorFactory)(
        {},
        opts,
      )({ schema, httpPart: 'querystring' })
    const schema = { type: 'object', properties: { top: { type: 'integer', minimum: 1 } }, additionalProperties: false }
    const validate = validatorOf(schema)
    expect(validatorOf(structuredClone(schema))).toBe(validate)
    const query: Record<string, unknown> = { top: '7', other: 'x' }
    expect(validate(query)).toBe(true)
    expect(query).toEqual({ top: 7 })
    expect(validate({ top: '0' })).toBe(false)
    const other = validatorOf({ type: 'object', properties: { top: { type: 'integer', minimum: 5 } } })
    expect(other).not.toBe(validate)
    expect(other({ top: '3' })).toBe(false)
    const strict = validatorOf(schema, { customOptions: { coerceTypes: false, removeAdditional: true } })
    expect(strict).not.toBe(validate)
    expect(strict({ top: '7' })).toBe(false)
  })
})
