import {
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { collectFields, collectSubfields } from 'graphql/execution/collectFields';

/** The fast path gave up: graphql-js `execute` shapes this answer (and reports its errors). */
const BAIL = Symbol('bail');

type Collected = Map<string, readonly FieldNode[]>;

/**
 * Shapes a query's answer from the rows the compiled SQL built (objects keyed by response key), as graphql-js
 * `execute` with the engine's resolver (`source[responseKey]`) would: the same field collection (fragments,
 * `@skip`/`@include`), `__typename`, each leaf through its type's `serialize`. Anything else (a null in a
 * non-null position, an abstract type, a value of the wrong shape, a serializer that throws, introspection)
 * returns `undefined`, and the caller runs `execute`, so errors and their null bubbling stay graphql-js's own.
 */
export function shapeQuery(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  root: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const queryType = schema.getQueryType();
  if (operation.operation !== 'query' || !queryType) return undefined;
  const subfields = new Map<readonly FieldNode[], Map<GraphQLObjectType, Collected>>();
  const subfieldsOf = (type: GraphQLObjectType, nodes: readonly FieldNode[]): Collected => {
    let byType = subfields.get(nodes);
    if (!byType) subfields.set(nodes, (byType = new Map()));
    let fields = byType.get(type);
    if (!fields) byType.set(type, (fields = collectSubfields(schema, fragments, variables, type, nodes)));
    return fields;
  };

  const objectOf = (type: GraphQLObjectType, fields: Collected, source: Record<string, unknown>): Record<string, unknown> | typeof BAIL => {
    const out: Record<string, unknown> = {};
    const defs = type.getFields();
    for (const [key, nodes] of fields) {
      const name = nodes[0]!.name.value;
      if (name === '__typename') {
        out[key] = type.name;
        continue;
      }
      const def = defs[name];
      if (!def || name.startsWith('__')) return BAIL;
      const value = complete(def.type, nodes, source[key]);
      if (value === BAIL) return BAIL;
      out[key] = value;
    }
    return out;
  };

  const complete = (type: GraphQLOutputType, nodes: readonly FieldNode[], value: unknown): unknown => {
    if (isNonNullType(type)) return value === null || value === undefined ? BAIL : complete(type.ofType, nodes, value);
    if (value === null || value === undefined) return null;
    if (isListType(type)) {
      if (!Array.isArray(value)) return BAIL;
      const items: unknown[] = [];
      for (const item of value) {
        const done = complete(type.ofType, nodes, item);
        if (done === BAIL) return BAIL;
        items.push(done);
      }
      return items;
    }
    if (isLeafType(type)) {
      try {
        const serialized: unknown = type.serialize(value);
        return serialized === undefined ? BAIL : serialized;
      } catch {
        return BAIL;
      }
    }
    if (!isObjectType(type) || type.isTypeOf || typeof value !== 'object' || Array.isArray(value)) return BAIL;
    return objectOf(type, subfieldsOf(type, nodes), value as Record<string, unknown>);
  };

  const top = collectFields(schema, fragments, variables, queryType, operation.selectionSet);
  const data = objectOf(queryType, top, root);
  return data === BAIL ? undefined : data;
}
