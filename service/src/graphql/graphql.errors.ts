// The words pg_graphql uses for a mistake, so that a client written against Supabase sees what it expects.
// graphql-js finds the same mistakes (validation, variable coercion); its messages are rewritten here.

/** Where a field was selected, named as pg_graphql names the place in "unknown field" errors. */
function unknownField(field: string, type: string): string {
  if (field === 'aggregate' && type.endsWith('Connection')) return 'enable the aggregate directive to use aggregates';
  if (type === 'Query' || type === 'Mutation') return `Unknown field "${field}" on type ${type}`;
  if (type.endsWith('AggregateResult')) return `Unknown or invalid field "${field}" selected on type "${type}"`;
  if (type.endsWith('Connection')) return 'unknown field in connection';
  if (type.endsWith('Edge')) return 'unknown field in edge';
  if (type === 'PageInfo') return 'unknown field in pageInfo';
  const response = /(Insert|Update|Delete)Response$/.exec(type);
  if (response) return `unknown field in ${response[1]!.toLowerCase()}`;
  return `Unknown field '${field}' on type '${type}'`;
}

/** The named type of a type reference such as `[Foo!]!`. */
const namedType = (ref: string) => ref.replace(/[[\]!]/g, '');

/** The column behind argument `arg` of a `<table>ByPk` field, for pg_graphql's words about a missing key. */
export type KeyColumnOf = (field: string, arg: string) => string | undefined;

const REWRITES: [RegExp, (...groups: string[]) => string][] = [
  [/^Cannot query field "([^"]+)" on type "([^"]+)"\./, (field, type) => unknownField(field!, type!)],
  [/^Schema is not configured to execute mutation operation/, () => 'Unknown type Mutation'],
  [/^Cannot spread fragment "[^"]+" within itself/, () => 'Found a cycle between fragments'],
  [/^Fields "([^"]+)" conflict because they have differing arguments/, (field) => `Two fields named \`${field}\` have different arguments`],
  [/conflict because "([^"]+)" and "([^"]+)" are different fields/, (a, b) => `Fields \`${b}\` and \`${a}\` are different`],
  [/^Unknown argument "([^"]+)" on field/, (arg) => `Input contains extra keys ["${arg}"]`],
  [/Field "([^"]+)" is not defined by type "([^"]+)"/, (key, type) => `Input for type ${type} contains extra keys ["${key}"]`],
  [/^Variable "\$[^"]+" of required type "[^"]+" was not provided/, () => 'Invalid input for NonNull type'],
  [/^Field "[^"]+" argument "[^"]+" of type "[^"]+!" is required, but it was not provided/, () => 'Invalid input for NonNull type'],
  [/^Expected value of type "[^"]+!", found null/, () => 'Invalid input for NonNull type'],
  [/^Variable "\$[^"]+" of type "[^"]+" used in position expecting type "([^"]+)"/, (type) => `Invalid input for ${namedType(type!)} type`],
  [/Expected type "([^"]+)" to be an object/, (type) => `Invalid input for ${namedType(type!)} type`],
  [/^Expected value of type "([^"]+)", found/, (type) => `Invalid input for ${namedType(type!)} type`],
  [/^Enum "([^"]+)" cannot represent/, (type) => `Invalid input for ${type} type`],
  [/(?:^|; )(\w+) cannot represent/, (type) => `Invalid input for ${type} type`],
  [/Value "[^"]*" does not exist in "([^"]+)" enum/, (type) => `Invalid input for ${type} type`],
];

/** pg_graphql's message for a mistake graphql-js describes as `message` (unchanged when pg_graphql has none). */
export function pgGraphqlMessage(message: string, keyColumnOf: KeyColumnOf = () => undefined): string {
  const missingKey = /^Field "(\w+ByPk)" argument "(\w+)" of type "[^"]+" is required, but it was not provided/.exec(message);
  const column = missingKey && keyColumnOf(missingKey[1]!, missingKey[2]!);
  if (column) return `Missing primary key column(s): ${column}`;
  for (const [pattern, rewrite] of REWRITES) {
    const match = pattern.exec(message);
    if (match) return rewrite(...match.slice(1));
  }
  return message;
}
