import {
  execute,
  NoUndefinedVariablesRule,
  NoUnusedVariablesRule,
  specifiedRules,
  UniqueInputFieldNamesRule,
  getNamedType,
  GraphQLError,
  isEnumType,
  Kind,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type EnumValueNode,
  parse,
  validate,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { getVariableValues } from 'graphql/execution/values';
import type { Reflection } from '../project/project.reflection';
import type { ApiRole } from '../project/project.setup';
import { AppError } from '../shared/errors';
import { pgGraphqlMessage, type KeyColumnOf } from './graphql.errors';
import { buildModel, lowerFirst, type GraphModel } from './graphql.model';
import { OperationPlanner } from './graphql.plan';
import { RowBudget } from './graphql.plan.types';
import { buildSchema } from './graphql.schema';
import { shapeQuery } from './graphql.shape';
import { documentSizeError, type SizeLimits } from './graphql.size';
import { mutationSql, querySql } from './graphql.transpile';

/** A GraphQL request body. */
export interface GraphqlRequest {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

/** The answer, shaped as pg_graphql answers: `{data}` or `{data: null, errors: [{message}]}`. */
export interface GraphqlResponse {
  data: Record<string, unknown> | null;
  errors?: { message: string }[];
}

/** Limits on one request. */
export interface GraphqlLimits extends SizeLimits {
  maxQueryLength: number;
  /** Root fields (each one a statement or subquery of its own, aliases included) per operation. */
  maxRootFields: number;
  /** Rows the whole request may return: each page's size times the rows of the pages it is nested in. */
  maxRows: number;
}

/** The limits every request runs under, whatever its key. */
export const DEFAULT_LIMITS: GraphqlLimits = {
  maxDepth: 16,
  maxFields: 2_000,
  maxFragmentNesting: 100,
  maxSameKey: 50,
  maxQueryLength: 100_000,
  maxRootFields: 20,
  maxRows: 30_000,
};

/** One statement the caller runs in the request's transaction, reading `columns` of its first row as JSON text. */
export interface PlannedStatement {
  sql: string;
  params: (string | null)[];
  columns: string[];
  /** A mutation's `atMost`: more affected rows than this roll the request back. */
  atMost: number | null;
  verb: string;
}

/** What a step decided: the whole answer (as JSON text), or the statements to run before `finish`. */
export type PlanOutcome =
  | { kind: 'answer'; body: string; internalError?: string }
  | { kind: 'refused'; code: 'method_not_allowed'; detail: string }
  | { kind: 'need-reflection' }
  | { kind: 'continue' }
  | { kind: 'statements'; statements: PlannedStatement[] };

/** Postgres errors whose message is safe and useful to show: data, integrity, privilege, RLS, raise, timeouts. */
const SHOWN_SQLSTATE = /^(22|23|42501|P0001|57014|40001|40P01|25006)/;

/** The message a client sees for an error thrown while executing. */
export function publicMessage(err: unknown): string {
  if (err instanceof AppError) return err.detail;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && SHOWN_SQLSTATE.test(code) && err instanceof Error) return err.message;
  return 'Internal error';
}

/** The JSON text of an answer that is one error. */
export function failureBody(message: string): string {
  return JSON.stringify({ data: null, errors: [{ message }] } satisfies GraphqlResponse);
}

interface Prepared {
  request: GraphqlRequest;
  document: DocumentNode;
  /** The operation to run, or why none can be picked (reported after validation, as graphql-js orders its errors). */
  selected: OperationDefinitionNode | string;
}

interface Planned extends Prepared {
  schema: GraphQLSchema;
  operation: OperationDefinitionNode;
  fragments: Record<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  /** The response key of each value `finish` receives, in order. */
  keys: string[];
}

const CACHE_SIZE = 500;
/** Requests between their steps; a caller that never finishes one loses it to newer ones rather than growing this. */
const MAX_IN_FLIGHT = 10_000;

/**
 * Everything GraphQL costs the CPU, in three steps around the caller's SQL: `prepare` (parse, size limits, the
 * operation), `plan` (schema, validation, variables, compilation into statements) and `finish` (the rows shaped
 * into the answer's JSON text). It runs in its own thread (`graphql.thread.ts`), so no document, however large
 * or hostile, holds the HTTP event loop; the database work stays with the caller's transaction.
 */
export class GraphqlPlanner {
  private readonly schemas = new Map<ApiRole, { version: number; schema: GraphQLSchema; model: GraphModel }>();
  private reflection: Reflection | undefined;
  /** Parsed documents and their validation per schema, by query text: clients repeat the same few queries. */
  private readonly parsed = new Map<string, DocumentNode>();
  private readonly validated = new WeakMap<GraphQLSchema, Map<DocumentNode, { document: DocumentNode; errors: readonly GraphQLError[] }>>();
  private readonly inFlight = new Map<number, Prepared | Planned>();

  constructor(private readonly limits: GraphqlLimits = DEFAULT_LIMITS) {}

  /** Reads the request and its document; with `queriesOnly` (a GET) a mutation is refused before anything runs. */
  prepare(id: number, request: GraphqlRequest, queriesOnly: boolean): PlanOutcome {
    if (typeof request.query !== 'string' || request.query.length === 0) return answer('No query provided');
    if (request.query.length > this.limits.maxQueryLength) return answer('Query is too long');
    if (request.variables != null && (typeof request.variables !== 'object' || Array.isArray(request.variables))) {
      return answer('variables must be an object');
    }
    let document = this.parsed.get(request.query);
    if (!document) {
      try {
        document = parse(request.query, { maxTokens: 50_000 });
      } catch (err) {
        return answer((err as Error).message);
      }
      remember(this.parsed, request.query, document);
    }
    // Measured before any other rule walks the document, and before the caller takes a database connection.
    const sizeError = documentSizeError(document, this.limits);
    if (sizeError) return answer(sizeError);
    const selected = pickOperation(document, request.operationName);
    if (queriesOnly && typeof selected !== 'string' && selected.operation === 'mutation') {
      return { kind: 'refused', code: 'method_not_allowed', detail: 'Mutations need POST' };
    }
    if (this.inFlight.size >= MAX_IN_FLIGHT) this.inFlight.delete(this.inFlight.keys().next().value!);
    this.inFlight.set(id, { request, document, selected });
    return { kind: 'continue' };
  }

  /**
   * Validates and compiles a prepared request against the catalog of the caller's transaction (`version`);
   * asks for the reflection itself when it has not seen that version yet.
   */
  plan(id: number, role: ApiRole, version: number, reflection?: Reflection): PlanOutcome {
    const prepared = this.inFlight.get(id);
    if (!prepared) throw new Error(`GraphQL request ${id} was not prepared`);
    if (reflection) this.reflection = reflection;
    const hit = this.schemas.get(role);
    let built = hit?.version === version ? hit : undefined;
    if (!built) {
      if (this.reflection?.version !== version) return { kind: 'need-reflection' };
      const model = buildModel(this.reflection, role);
      built = { version, schema: buildSchema(model), model };
      this.schemas.set(role, built);
    }
    try {
      return this.compile(id, prepared, built.schema, built.model);
    } catch (err) {
      this.inFlight.delete(id);
      return failure(err);
    }
  }

  private compile(id: number, prepared: Prepared, schema: GraphQLSchema, model: GraphModel): PlanOutcome {
    const { request } = prepared;
    const { document, errors } = this.validate(schema, prepared.document);
    // The same operation, in the document whose enum strings were read as enum values.
    const operation = document === prepared.document ? prepared.selected : pickOperation(document, request.operationName);
    // As pg_graphql: the first mistake, in its words.
    if (errors.length > 0) return answer(pgGraphqlMessage(errors[0]!.message, keyColumnOf(model)));
    if (typeof operation === 'string') return answer(operation);
    if (operation.operation === 'subscription') return answer('Subscriptions are not supported');
    const introspected = model.introspection ? undefined : introspectionField(operation);
    if (introspected) return answer(`Unknown field "${introspected}" on type Query`);
    const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], request.variables ?? {});
    if (coerced.errors) return answer(pgGraphqlMessage(coerced.errors[0]!.message));
    const fragments: Record<string, FragmentDefinitionNode> = {};
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
    const planner = new OperationPlanner(schema, model, coerced.coerced, fragments, new RowBudget(this.limits.maxRows));
    const rootType = operation.operation === 'mutation' ? 'Mutation' : 'Query';
    const top = planner.collect(operation.selectionSet, rootType);
    const data = [...top].filter(([, nodes]) => !nodes[0]!.name.value.startsWith('__'));
    if (data.length > this.limits.maxRootFields) {
      return answer(`Query selects too many root fields: the limit is ${this.limits.maxRootFields}, aliases included`);
    }
    const statements: PlannedStatement[] = [];
    if (operation.operation === 'mutation') {
      // Every field is planned (and every error raised) before any SQL is written.
      const plans = data.map(([, nodes]) => planner.mutationField(mergeNodes(nodes)));
      for (const plan of plans) {
        const { sql, params } = mutationSql(plan);
        const atMost = plan.kind === 'update' || plan.kind === 'delete' ? plan.atMost : null;
        statements.push({ sql, params, columns: ['data'], atMost, verb: plan.kind === 'function' ? 'call' : plan.kind });
      }
    } else if (data.length > 0) {
      // As text: the caller's thread passes the JSON on without parsing it.
      const { sql, params, columns } = querySql(data.map(([, nodes]) => planner.queryField(mergeNodes(nodes))));
      statements.push({ sql, params, columns, atMost: null, verb: 'select' });
    }
    const keys = data.map(([key]) => key);
    this.inFlight.set(id, { ...prepared, document, schema, operation, fragments, variables: coerced.coerced, keys });
    return { kind: 'statements', statements };
  }

  /** Shapes the values the statements returned (JSON text, in the order of the planned columns) into the answer. */
  async finish(id: number, values: (string | null)[]): Promise<PlanOutcome> {
    const planned = this.inFlight.get(id);
    this.inFlight.delete(id);
    if (!planned || !('keys' in planned)) throw new Error(`GraphQL request ${id} was not planned`);
    const { schema, operation, fragments, variables, keys, document, request } = planned;
    const root: Record<string, unknown> = {};
    keys.forEach((key, i) => (root[key] = values[i] == null ? null : JSON.parse(values[i])));
    // Plain queries are shaped here; graphql-js `execute` takes over for mutations and whenever the fast path gives up.
    const shaped = shapeQuery(schema, operation, fragments, variables, root);
    if (shaped) return respond({ data: shaped });
    const result = await execute({
      schema,
      document,
      operationName: request.operationName ?? undefined,
      variableValues: request.variables ?? {},
      rootValue: root,
      fieldResolver: (source: Record<string, unknown> | null, _args, _ctx, info) => source?.[String(info.path.key)],
    });
    if (result.errors?.length) {
      return respond({ data: null, errors: result.errors.map((e) => ({ message: publicMessage(e.originalError ?? e) })) });
    }
    return respond({ data: (result.data ?? null) as Record<string, unknown> | null });
  }

  /** Forgets a request the caller gave up on (its SQL failed, or it was answered early). */
  discard(id: number): void {
    this.inFlight.delete(id);
  }

  /** Validates a document (read with enum values given as strings, as pg_graphql reads them), cached per schema. */
  private validate(schema: GraphQLSchema, parsed: DocumentNode): { document: DocumentNode; errors: readonly GraphQLError[] } {
    let bySchema = this.validated.get(schema);
    if (!bySchema) this.validated.set(schema, (bySchema = new Map()));
    let checked = bySchema.get(parsed);
    if (!checked) {
      const document = enumStringsAsEnums(schema, parsed);
      checked = { document, errors: validate(schema, document, RULES).filter((e) => !onlyItemNullabilityDiffers(e.message)) };
      remember(bySchema, parsed, checked);
    }
    return checked;
  }
}

/**
 * Whether an error only says a variable of list type allows null items where the argument's list does not
 * (`[AccountOrderBy]` for `[AccountOrderBy!]`): pg_graphql takes such a variable, and svc checks the items it reads.
 */
function onlyItemNullabilityDiffers(message: string): boolean {
  const m = /^Variable "\$[^"]+" of type "([^"]+)" used in position expecting type "([^"]+)"/.exec(message);
  if (!m) return false;
  const inner = (type: string) => type.replace(/!$/, '').replace(/!/g, '');
  const [given, expected] = [m[1]!, m[2]!];
  return given.includes('[') && inner(given) === inner(expected) && (given.endsWith('!') || !expected.endsWith('!'));
}

/**
 * graphql-js's rules but three pg_graphql does not apply: a variable the operation does not define is absent, one it
 * does not use is ignored, and of an input field given twice the last is taken.
 */
const RULES = specifiedRules.filter(
  (rule) => rule !== NoUndefinedVariablesRule && rule !== NoUnusedVariablesRule && rule !== UniqueInputFieldNamesRule,
);

function remember<K, V>(cache: Map<K, V>, key: K, value: V): void {
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as K);
  cache.set(key, value);
}

function respond(response: GraphqlResponse): PlanOutcome {
  return { kind: 'answer', body: JSON.stringify(response) };
}

function answer(message: string): PlanOutcome {
  return { kind: 'answer', body: failureBody(message) };
}

/** An error thrown while compiling: its public message, and the error itself when it is not one to show. */
function failure(err: unknown): PlanOutcome {
  const message = publicMessage(err);
  const internalError = message === 'Internal error' ? (err instanceof Error ? err.message : String(err)) : undefined;
  return { kind: 'answer', body: failureBody(message), internalError };
}

function mergeNodes(nodes: FieldNode[]): FieldNode {
  if (nodes.length === 1) return nodes[0]!;
  const selections = nodes.flatMap((n) => n.selectionSet?.selections ?? []);
  return { ...nodes[0]!, selectionSet: { kind: Kind.SELECTION_SET, selections } };
}

/**
 * The document with each string literal given where an enum is expected, and naming one of its values, as that
 * enum value: pg_graphql accepts `{plan: {eq: "free"}}` for an enum column, graphql-js only `{plan: {eq: free}}`.
 */
export function enumStringsAsEnums(schema: GraphQLSchema, document: DocumentNode): DocumentNode {
  const typeInfo = new TypeInfo(schema);
  let changed = false;
  const read = visit(
    document,
    visitWithTypeInfo(typeInfo, {
      StringValue(node) {
        const type = getNamedType(typeInfo.getInputType());
        if (!isEnumType(type) || !type.getValue(node.value)) return undefined;
        changed = true;
        return { kind: Kind.ENUM, value: node.value, loc: node.loc } satisfies EnumValueNode;
      },
    }),
  );
  return changed ? read : document;
}

/** Finds the column behind a `<table>ByPk` field's argument. */
const keyColumnOf =
  (model: GraphModel): KeyColumnOf =>
  (field, arg) => {
    const table = model.tables.find((t) => `${lowerFirst(t.typeName)}ByPk` === field);
    const f = table?.fields.get(arg);
    return f?.kind === 'column' ? f.column.name : undefined;
  };

function pickOperation(document: DocumentNode, name: string | null | undefined): OperationDefinitionNode | string {
  const ops = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (name) return ops.find((o) => o.name?.value === name) ?? 'Operation not found';
  if (ops.length !== 1) return 'Must provide operation name if query contains multiple operations';
  return ops[0]!;
}

/** The first introspection root field (`__schema` or `__type`) the operation selects, if any. */
function introspectionField(op: OperationDefinitionNode): string | undefined {
  for (const s of op.selectionSet.selections) {
    if (s.kind === Kind.FIELD && (s.name.value === '__schema' || s.name.value === '__type')) return s.name.value;
  }
  return undefined;
}
