import { AjvCompiler } from '@fastify/ajv-compiler'
import SerializerSelector, { type SerializerFactory } from '@fastify/fast-json-stringify-compiler'

type Serializer = ReturnType<ReturnType<SerializerFactory>>

/**
 * A route's response serializers, compiled once per schema object: the compiled function depends only on that
 * schema, the registered external schemas and the options, so it is pooled by exactly those.
 */
function pooledSerializers(): SerializerFactory {
  const build = SerializerSelector()
  const pools = new Map<string, WeakMap<object, Serializer>>()
  return (externalSchemas, options) => {
    const key = JSON.stringify([externalSchemas, options])
    let pool = pools.get(key)
    if (!pool) {
      pool = new WeakMap()
      pools.set(key, pool)
    }
    const known = pool
    const compile = build(externalSchemas, options)
    return (route) => {
      const schema = route.schema
      if (typeof schema !== 'object' || schema === null) return compile(route)
      let serialize = known.get(schema)
      if (!serialize) {
        serialize = compile(route)
        known.set(schema, serialize)
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
