import { AjvCompiler, type ValidatorFactory } from '@fastify/ajv-compiler'
import SerializerSelector, { type SerializerFactory } from '@fastify/fast-json-stringify-compiler'

/**
 * Route compilers pooled by what the compiled function depends on: the registered external schemas and the options
 * (the pool), then the route's schema. Schemas are keyed by their JSON, not their identity: the routes write their
 * schemas inline, so each app built holds new objects of the same shape.
 */
function pooledByShape<Options, Route extends { schema?: unknown }, Compiled>(
  build: (externalSchemas: unknown, options: Options) => (route: Route) => Compiled,
  poolKey: (options: Options) => unknown,
): (externalSchemas: unknown, options: Options) => (route: Route) => Compiled {
  const pools = new Map<string, Map<string, Compiled>>()
  return (externalSchemas, options) => {
    const key = JSON.stringify([externalSchemas, poolKey(options)])
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
      let compiled = known.get(shape)
      if (!compiled) {
        compiled = compile(route)
        known.set(shape, compiled)
      }
      return compiled
    }
  }
}

/** What fastify passes @fastify/ajv-compiler at run time (its declared types describe ajv's own compile instead). */
interface ValidatorOptions {
  readonly customOptions?: unknown
}
interface ValidatorRoute {
  readonly schema?: unknown
}
type BuildValidator = (externalSchemas: unknown, options: ValidatorOptions) => (route: ValidatorRoute) => unknown

/**
 * Fastify's own validator and serializer compilers, shared by every app this process builds. Fastify makes new
 * ones per instance, so a process that builds the app more than once (the test suite builds it about sixty times)
 * compiled every route's validators and serializers again each time: about 60 ms of CPU per build. A validator's
 * pool is keyed by ajv's options (`customOptions`) as @fastify/ajv-compiler keys its ajv instances.
 */
export const sharedSchemaCompilers = {
  buildValidator: pooledByShape(
    AjvCompiler() as unknown as BuildValidator,
    (options) => options.customOptions,
  ) as unknown as ValidatorFactory,
  buildSerializer: pooledByShape(SerializerSelector(), (options) => options) as SerializerFactory,
}
