import { AjvCompiler } from '@fastify/ajv-compiler'
import SerializerSelector, { type SerializerFactory } from '@fastify/fast-json-stringify-compiler'

type Serializer = ReturnType<ReturnType<SerializerFactory>>

/**
 * A route's response serializers, compiled once per schema: the compiled function depends only on the schema, the
 * registered external schemas and the options, so it is pooled by exactly those. Schemas are keyed by their JSON, not
 * their identity: the routes write their response maps inline, so each app built holds new objects of the same shape.
 */
function pooledSerializers(): SerializerFactory {
  const build = SerializerSelector()
  const pools = new Map<string, Map<string, Serializer>>()
  return (externalSchemas, options) => {
    const key = JSON.stringify([externalSchemas, options])
    let pool = pools.get(key)
    if (!pool) {
      pool = new Map()
      pools.set(key, pool)
    }
    const known = pool
    const compile = build(externalSchemas, options)
    return (route) => {
      const schema = route.schema
      if (typeof schema !== 'object' || schema === null) return compile(route)
      const shape = JSON.stringify(schema)
      let serialize = known.get(shape)
      if (!serialize) {
        serialize = compile(route)
        known.set(shape, serialize)
      }
      return serialize
    }
  }
}

/**
 * Fastify's own validator and serializer compilers, shared by every app this process builds. Fastify makes new
 * ones per instance, so a process that builds the app more than once (the test suite builds it about sixty times)
 * compiled every route's validators and serializers again each time: about 60 ms of CPU per build.
 */
export const sharedSchemaCompilers = { buildValidator: AjvCompiler(), buildSerializer: pooledSerializers() }
