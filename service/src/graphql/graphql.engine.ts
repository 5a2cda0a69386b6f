import {
  execute,
  GraphQLError,
  Kind,
  parse,
  validate,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { getVariableValues } from 'graphql/execution/values';
import type { ProjectDatabase } from '../project/project.database';
import type { JwtClaims } from '../project/project.keys';
import type { Reflection } from '../project/project.reflection';
import type { ApiRole } from '../project/project.setup';
import { AppError } from '../shared/errors';
import { Compiler, RowBudget } from './graphql.compile';
import { buildModel, type GraphModel } from './graphql.model';
import { buildSchema } from './graphql.schema';
import { shapeQuery } from './graphql.shape';
import { documentSizeError, type SizeLimits } from './graphql.size';

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

/** Postgres errors whose message is safe and useful to show: data, integrity, privilege, RLS, raise, timeouts. */
const SHOWN_SQLSTATE = /^(22|23|42501|P0001|57014|40001|40P01|25006)/;

/** The message a client sees for an error thrown while executing. */
export function publicMessage(err: unknown): string {
  if (err instanceof AppError) return err.detail;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && SHOWN_SQLSTATE.test(code) && err instanceof Error) return err.message;
  return 'Internal error';
}

/** Serves GraphQL over a project database: a schema per role and schema version, one SQL statement per root field. */
export class GraphqlEngine {
  private schemas = new Map<ApiRole, { version: number; schema: GraphQLSchema; model: GraphModel }>();
  /** Parsed documents and their validation per schema, by query text: clients repeat the same few queries. */
  private readonly parsed = new Map<string, DocumentNode>();
  private readonly validated = new WeakMap<GraphQLSchema, Map<DocumentNode, readonly GraphQLError[]>>();

  constructor(
    private readonly project: ProjectDatabase,
    private readonly limits: GraphqlLimits = DEFAULT_LIMITS,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  private schemaFor(reflection: Reflection, role: ApiRole): { schema: GraphQLSchema; model: GraphModel } {
    const hit = this.schemas.get(role);
    if (hit && hit.version === reflection.version) return hit;
    const model = buildModel(reflection, role);
    const built = { version: reflection.version, schema: buildSchema(model), model };
    this.schemas.set(role, built);
    return built;
  }

  private validate(schema: GraphQLSchema, document: DocumentNode): readonly GraphQLError[] {
    let bySchema = this.validated.get(schema);
    if (!bySchema) this.validated.set(schema, (bySchema = new Map()));
    let errors = bySchema.get(document);
    if (!errors) {
      errors = validate(schema, document);
      remember(bySchema, document, errors);
    }
    return errors;
  }

  /**
   * Runs one request as the claims' role in one transaction (rolled back on any error). With `queriesOnly` (a GET),
   * a document whose selected operation is a mutation is refused as `method_not_allowed` before anything runs.
   */
  async run(request: GraphqlRequest, claims: JwtClaims, { queriesOnly = false } = {}): Promise<GraphqlResponse> {
    if (typeof request.query !== 'string' || request.query.length === 0) return fail('No query provided');
    if (request.query.length > this.limits.maxQueryLength) return fail('Query is too long');
    if (request.variables != null && (typeof request.variables !== 'object' || Array.isArray(request.variables))) {
      return fail('Variables must be a JSON object');
    }
    let document = this.parsed.get(request.query);
    if (!document) {
      try {
        document = parse(request.query, { maxTokens: 50_000 });
      } catch (err) {
        return fail((err as Error).message);
      }
      remember(this.parsed, request.query, document);
    }
    // Measured before any other rule walks the document, and before a database connection is taken.
    const sizeError = documentSizeError(document, this.limits);
    if (sizeError) return fail(sizeError);
    const selected = pickOperation(document, request.operationName);
    if (queriesOnly && typeof selected !== 'string' && selected.operation === 'mutation') {
      throw new AppError('method_not_allowed', 'Mutations need POST');
    }
    const doc = document;
    try {
      return await this.project.asRole(claims, async ({ client, reflection }) => {
        const { schema, model } = this.schemaFor(reflection, claims.role);
        const errors = this.validate(schema, doc);
        if (errors.length > 0) return { data: null, errors: errors.map((e) => ({ message: e.message })) };
        const operation = selected;
        if (typeof operation === 'string') return fail(operation);
        if (operation.operation === 'subscription') return fail('Subscriptions are not supported');
        if (!model.introspection && usesIntrospection(operation)) return fail('Unknown field "__schema" on type Query');
        const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], request.variables ?? {});
        if (coerced.errors) return { data: null, errors: coerced.errors.map((e) => ({ message: e.message })) };
        const fragments: Record<string, FragmentDefinitionNode> = {};
        for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
        const budget = new RowBudget(this.limits.maxRows);
        const compiler = new Compiler(schema, model, coerced.coerced, fragments, budget);
        const rootType = operation.operation === 'mutation' ? 'Mutation' : 'Query';
        const root: Record<string, unknown> = {};
        const top = compiler.collect(operation.selectionSet, rootType);
        const data = [...top].filter(([, nodes]) => !nodes[0]!.name.value.startsWith('__'));
        if (data.length > this.limits.maxRootFields) {
          return fail(`Query selects too many root fields: the limit is ${this.limits.maxRootFields}, aliases included`);
        }
        if (operation.operation === 'mutation') {
          const statements = data.map(([key, nodes]) => {
            const fieldCompiler = new Compiler(schema, model, coerced.coerced, fragments, budget);
            return { key, m: fieldCompiler.mutationField(mergeNodes(nodes)), params: fieldCompiler.params };
          });
          for (const { key, m, params } of statements) {
            const { rows } = await client.query(m.sql, params);
            const n = Number(rows[0]!.n);
            if (m.atMost !== null && n > m.atMost) throw new AppError('conflict', `${m.verb} impacts too many records`);
            root[key] = rows[0]!.data;
          }
        } else if (data.length > 0) {
          const exprs = data.map(([key, nodes]) => [key, compiler.queryField(mergeNodes(nodes))] as const);
          const select = exprs.map(([, e], i) => `${e} as "f${i}"`).join(', ');
          const { rows } = await client.query(`select ${select}`, compiler.params);
          exprs.forEach(([key], i) => (root[key] = rows[0]![`f${i}`]));
        }
        // Plain queries are shaped here; graphql-js `execute` takes over for mutations and whenever the fast path gives up.
        const shaped = shapeQuery(schema, operation, fragments, coerced.coerced, root);
        if (shaped) return { data: shaped };
        const result = await execute({
          schema,
          document: doc,
          operationName: request.operationName ?? undefined,
          variableValues: request.variables ?? {},
          rootValue: root,
          fieldResolver: (source: Record<string, unknown> | null, _args, _ctx, info) => source?.[String(info.path.key)],
        });
        if (result.errors?.length) {
          return { data: null, errors: result.errors.map((e) => ({ message: publicMessage(e.originalError ?? e) })) };
        }
        return { data: (result.data ?? null) as Record<string, unknown> | null };
      });
    } catch (err) {
      const message = publicMessage(err);
      if (message === 'Internal error') this.onError(err);
      return fail(message);
    }
  }
}

const CACHE_SIZE = 500;

function remember<K, V>(cache: Map<K, V>, key: K, value: V): void {
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as K);
  cache.set(key, value);
}

function fail(message: string): GraphqlResponse {
  return { data: null, errors: [{ message }] };
}

function mergeNodes(nodes: FieldNode[]): FieldNode {
  if (nodes.length === 1) return nodes[0]!;
  const selections = nodes.flatMap((n) => n.selectionSet?.selections ?? []);
  return { ...nodes[0]!, selectionSet: { kind: Kind.SELECTION_SET, selections } };
}

function pickOperation(document: DocumentNode, name: string | null | undefined): OperationDefinitionNode | string {
  const ops = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (name) return ops.find((o) => o.name?.value === name) ?? `Unknown operation named "${name}"`;
  if (ops.length !== 1) return 'Must provide operation name if query contains multiple operations';
  return ops[0]!;
}

function usesIntrospection(op: OperationDefinitionNode): boolean {
  return op.selectionSet.selections.some((s) => s.kind === Kind.FIELD && (s.name.value === '__schema' || s.name.value === '__type'));
}
