import { getNamedType, isLeafType, isObjectType, type GraphQLSchema } from 'graphql';

/** A collection of the project's GraphQL schema with the query that reads its first rows. */
export interface Collection {
  name: string;
  query: string;
}

/** The schema's collections (Query fields named `…Collection`), each with a query of its scalar fields, `first: 10`. */
export function collectionsOf(schema: GraphQLSchema): Collection[] {
  const fields = schema.getQueryType()?.getFields() ?? {};
  return Object.values(fields)
    .filter((f) => f.name.endsWith('Collection'))
    .map((f) => {
      const connection = getNamedType(f.type);
      const edge = isObjectType(connection) ? getNamedType(connection.getFields().edges?.type) : undefined;
      const node = edge && isObjectType(edge) ? getNamedType(edge.getFields().node?.type) : undefined;
      const scalars = node && isObjectType(node) ? Object.values(node.getFields()).filter((n) => isLeafType(getNamedType(n.type))) : [];
      const selection = scalars.map((s) => `        ${s.name}`).join('\n');
      return {
        name: f.name,
        query: `query {\n  ${f.name}(first: 10) {\n    edges {\n      node {\n${selection}\n      }\n    }\n  }\n}\n`,
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}
