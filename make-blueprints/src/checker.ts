import { PLACEHOLDERS, PLACEHOLDER_TOKEN } from './blueprint';
import { collect, ExpressionError, parseTemplate, type Expr } from './expression';
import { fieldAt, isFieldList, type Field } from './fields';
import { FILTER_OPERATORS, takesOperand } from './filters';
import { MAKE_FUNCTIONS, MAKE_VARIABLES } from './functions';
import { HTTP_KEYCHAIN_PARAMETERS, MODULES, type ModuleSpec } from './modules';
import { checkShape, isArray, isBoolean, isNumber, isObject, isRecord, isText, join, oneOf, type Problem, type Rule } from './shape';

export type { Problem } from './shape';

const ROUTER = 'builtin:BasicRouter';

const isPositiveInteger: Rule = (value) => (Number.isInteger(value) && (value as number) > 0 ? undefined : 'a positive integer');
const isNonEmptyText: Rule = (value) => (typeof value === 'string' && value.trim() !== '' ? undefined : 'non-empty text');

const SCENARIO_SETTINGS: Record<string, Rule> = {
  roundtrips: isNumber,
  maxErrors: isNumber,
  autoCommit: isBoolean,
  autoCommitTriggerLast: isBoolean,
  sequential: isBoolean,
  confidential: isBoolean,
  dataloss: isBoolean,
  dlq: isBoolean,
  freshVariables: isBoolean,
};

type Visible = ReadonlyMap<number, Field[]>;

interface Walk {
  problems: Problem[];
  idPaths: Map<number, string>;
  allIds: Set<number>;
}

/** Checks a blueprint's structure and every `{{N.field}}` reference in it; an empty list means no problems were found. */
export function checkBlueprint(input: unknown): Problem[] {
  if (!isRecord(input)) return [{ path: '', message: 'a blueprint must be a JSON object' }];
  const walk: Walk = { problems: [], idPaths: new Map(), allIds: new Set(moduleIds(input.flow)) };
  walk.problems.push(...checkTopLevel(input));
  if (Array.isArray(input.flow)) checkFlow(input.flow, 'flow', new Map(), walk);
  walk.problems.push(...checkPlaceholders(input, ''), ...checkPortable(input, ''));
  return walk.problems;
}

/** Module names of Make's legacy HTTP app (v3), which keeps credentials in headers: the blueprints use HTTP v4's `http:MakeRequest`. */
const LEGACY_MODULES: Record<string, string> = {
  'http:ActionSendData': 'http:MakeRequest (HTTP v4) with a keychain',
  'http:ActionSendDataBasicAuth': 'http:MakeRequest (HTTP v4) with a basic-auth keychain',
  'http:ActionSendDataAPIKeyAuth': 'http:MakeRequest (HTTP v4) with an API key keychain',
};

/** Parameters naming things that exist only in the exporting account: a shipped blueprint leaves them 0, to be picked after import. */
const ACCOUNT_BOUND_PARAMETERS = new Set(['hook', 'datastore', 'account', 'connection', '__IMTCONN__', ...HTTP_KEYCHAIN_PARAMETERS]);

/** Keys an export from a live scenario may carry that describe that account or its runs, never the scenario itself. */
const EXPORTER_ONLY_KEYS = new Set([
  'samples',
  'scheduling',
  'teamId',
  'organizationId',
  'scenarioId',
  'hookId',
  'created',
  'lastEdit',
  'messages',
]);

/** Text that is a live credential rather than a placeholder. */
const CREDENTIAL = /svc_sk_[A-Za-z0-9]|whsec_[A-Za-z0-9+/]/;

/** Rules that make a blueprint portable: no legacy HTTP module, no account-bound id, no exporter-only metadata, no live credential. */
function checkPortable(value: unknown, path: string): Problem[] {
  const problems: Problem[] = [];
  const visit = (node: unknown, at: string) => {
    if (typeof node === 'string' && CREDENTIAL.test(node))
      problems.push({ path: at, message: 'holds a live svc key or webhook secret; use a keychain or a placeholder' });
    if (Array.isArray(node)) node.forEach((item, i) => visit(item, `${at}[${i}]`));
    if (!isRecord(node)) return;
    const isModule = typeof node.module === 'string' && typeof node.id === 'number';
    if (isModule && String(node.module) in LEGACY_MODULES) {
      problems.push({
        path: join(at, 'module'),
        message: `${String(node.module)} is Make's legacy HTTP app; use ${LEGACY_MODULES[String(node.module)]}`,
      });
    }
    if (isModule && isRecord(node.parameters)) {
      for (const [name, item] of Object.entries(node.parameters)) {
        if (ACCOUNT_BOUND_PARAMETERS.has(name) && item !== 0 && item !== '') {
          problems.push({
            path: join(join(at, 'parameters'), name),
            message: 'names something in one Make account; ship 0 and re-pick it after import',
          });
        }
      }
    }
    for (const [child, item] of Object.entries(node)) {
      const childPath = join(at, child);
      if (EXPORTER_ONLY_KEYS.has(child)) problems.push({ path: childPath, message: 'is exporter-only metadata of one account; remove it' });
      visit(item, childPath);
    }
  };
  visit(value, path);
  return problems;
}

function checkTopLevel(blueprint: Record<string, unknown>): Problem[] {
  const problems = checkShape(blueprint, { name: isNonEmptyText, flow: isArray, metadata: isObject }, '');
  if (Array.isArray(blueprint.flow) && blueprint.flow.length === 0)
    problems.push({ path: 'flow', message: 'must hold at least one module' });
  if (!isRecord(blueprint.metadata)) return problems;
  const metadata = blueprint.metadata;
  problems.push(
    ...checkShape(
      metadata,
      { instant: isBoolean, version: oneOf(1), scenario: isObject, designer: isObject, zone: isNonEmptyText },
      'metadata',
    ),
  );
  if (isRecord(metadata.scenario)) problems.push(...checkShape(metadata.scenario, SCENARIO_SETTINGS, 'metadata.scenario'));
  if (isRecord(metadata.designer)) problems.push(...checkShape(metadata.designer, { orphans: isArray }, 'metadata.designer'));
  const first = Array.isArray(blueprint.flow) && isRecord(blueprint.flow[0]) ? blueprint.flow[0] : undefined;
  const startsInstant = Boolean(first && MODULES[String(first.module)]?.instant);
  if (typeof metadata.instant === 'boolean' && metadata.instant !== startsInstant) {
    problems.push({
      path: 'metadata.instant',
      message: `must be ${startsInstant} for a scenario whose first module is ${String(first?.module)}`,
    });
  }
  return problems;
}

function moduleIds(flow: unknown): number[] {
  if (!Array.isArray(flow)) return [];
  return flow
    .filter(isRecord)
    .flatMap((module) => [
      ...(typeof module.id === 'number' ? [module.id] : []),
      ...(Array.isArray(module.routes) ? module.routes.filter(isRecord).flatMap((route) => moduleIds(route.flow)) : []),
    ]);
}

function checkFlow(flow: unknown[], path: string, outer: Visible, walk: Walk): void {
  const visible = new Map(outer);
  flow.forEach((module, i) => {
    const modulePath = `${path}[${i}]`;
    if (!isRecord(module)) {
      walk.problems.push({ path: modulePath, message: 'a module must be a JSON object' });
      return;
    }
    const spec = checkModule(module, modulePath, path === 'flow' && i === 0, walk);
    if (module.filter !== undefined) checkFilter(module.filter, `${modulePath}.filter`, visible, walk);
    forEachText(module.mapper, `${modulePath}.mapper`, (text, textPath) => checkTemplate(text, textPath, visible, walk));
    if (module.module === ROUTER) checkRoutes(module, modulePath, i === flow.length - 1, visible, walk);
    if (typeof module.id === 'number') visible.set(module.id, outputsOf(module, spec, modulePath, visible, walk));
  });
}

function checkModule(module: Record<string, unknown>, path: string, first: boolean, walk: Walk): ModuleSpec | undefined {
  const problems = walk.problems;
  problems.push(...checkShape(module, { id: isPositiveInteger, module: isText, version: isNumber, metadata: isObject }, path));
  if (isRecord(module.metadata))
    problems.push(...checkShape(module.metadata.designer, { x: isNumber, y: isNumber }, `${path}.metadata.designer`));
  checkUniqueId(module.id, path, walk);
  const spec = MODULES[String(module.module)];
  if (!spec) {
    problems.push({
      path: `${path}.module`,
      message: `unknown module ${JSON.stringify(module.module)} (known: ${Object.keys(MODULES).join(', ')})`,
    });
    return undefined;
  }
  if (typeof module.version === 'number' && module.version !== spec.version) {
    problems.push({ path: `${path}.version`, message: `${String(module.module)} is version ${spec.version}, not ${module.version}` });
  }
  problems.push(...checkParameters(module, spec, path), ...checkMapper(module, spec, path), ...(spec.check?.(module, path) ?? []));
  if (spec.outputsFromInterface && !(isRecord(module.metadata) && isFieldList(module.metadata.interface))) {
    problems.push({ path: `${path}.metadata.interface`, message: "must list the module's output fields in Make's interface format" });
  }
  if (spec.instant && !first)
    problems.push({ path: `${path}.module`, message: 'an instant trigger can only be the first module of a scenario' });
  return spec;
}

function checkUniqueId(id: unknown, path: string, walk: Walk): void {
  if (typeof id !== 'number') return;
  const earlier = walk.idPaths.get(id);
  if (earlier !== undefined) walk.problems.push({ path: `${path}.id`, message: `id ${id} is already used by ${earlier}` });
  else walk.idPaths.set(id, path);
}

function checkParameters(module: Record<string, unknown>, spec: ModuleSpec, path: string): Problem[] {
  if (spec.parameters) return checkShape(module.parameters, spec.parameters, `${path}.parameters`);
  return module.parameters === undefined || isRecord(module.parameters)
    ? []
    : [{ path: `${path}.parameters`, message: 'must be an object' }];
}

function checkMapper(module: Record<string, unknown>, spec: ModuleSpec, path: string): Problem[] {
  if (spec.mapper) return checkShape(module.mapper, spec.mapper, `${path}.mapper`);
  return module.mapper === null ? [] : [{ path: `${path}.mapper`, message: `must be null for ${String(module.module)}` }];
}

function checkRoutes(router: Record<string, unknown>, path: string, last: boolean, visible: Visible, walk: Walk): void {
  if (!last) walk.problems.push({ path, message: 'a router must be the last module of its flow; its routes carry on' });
  if (!Array.isArray(router.routes)) return;
  router.routes.forEach((route, j) => {
    const routePath = `${path}.routes[${j}]`;
    if (isRecord(route) && Array.isArray(route.flow) && route.flow.length > 0) checkFlow(route.flow, `${routePath}.flow`, visible, walk);
    else walk.problems.push({ path: routePath, message: 'a route must be an object with a non-empty flow' });
  });
}

function checkFilter(filter: unknown, path: string, visible: Visible, walk: Walk): void {
  const problems = checkShape(filter, { name: isNonEmptyText, conditions: isArray }, path);
  walk.problems.push(...problems);
  if (!isRecord(filter) || !Array.isArray(filter.conditions)) return;
  filter.conditions.forEach((group, g) => {
    if (!Array.isArray(group) || group.length === 0) {
      walk.problems.push({ path: `${path}.conditions[${g}]`, message: 'must be a non-empty array of conditions (all of which must hold)' });
      return;
    }
    group.forEach((condition, k) => checkCondition(condition, `${path}.conditions[${g}][${k}]`, visible, walk));
  });
}

function checkCondition(condition: unknown, path: string, visible: Visible, walk: Walk): void {
  const operator = isRecord(condition) ? String(condition.o) : '';
  const shape: Record<string, Rule> = { a: isText, o: oneOf(...Object.keys(FILTER_OPERATORS)) };
  if (takesOperand(operator)) shape.b = isText;
  walk.problems.push(...checkShape(condition, shape, path));
  forEachText(condition, path, (text, textPath) => checkTemplate(text, textPath, visible, walk));
}

function checkTemplate(text: string, path: string, visible: Visible, walk: Walk): void {
  let formulas: Expr[];
  try {
    formulas = parseTemplate(text).flatMap((part) => (part.kind === 'formula' ? [part.expr] : []));
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    walk.problems.push({ path, message: error.message });
    return;
  }
  for (const expr of formulas) walk.problems.push(...formulaProblems(expr, path, visible, walk));
}

function formulaProblems(expr: Expr, path: string, visible: Visible, walk: Walk): Problem[] {
  const refs = collect(expr, 'ref').flatMap((ref) => {
    const field = resolveRef(ref, visible, walk);
    return typeof field === 'string' ? [{ path, message: `{{${ref.module}.${ref.path.join('.')}}}: ${field}` }] : [];
  });
  const calls = collect(expr, 'call').flatMap((call) => {
    const fn = MAKE_FUNCTIONS[call.name];
    if (!fn)
      return [
        { path, message: `${call.name}() is not one of the Make functions this package knows (${Object.keys(MAKE_FUNCTIONS).join(', ')})` },
      ];
    const arity = call.args.length;
    return arity < fn.minArgs || arity > fn.maxArgs
      ? [{ path, message: `${call.name}() takes ${fn.minArgs} to ${fn.maxArgs} arguments, not ${arity}` }]
      : [];
  });
  const variables = collect(expr, 'var').flatMap((variable) =>
    variable.name in MAKE_VARIABLES
      ? []
      : [
          {
            path,
            message: `${variable.name} is not one of the Make variables this package knows (${Object.keys(MAKE_VARIABLES).join(', ')})`,
          },
        ],
  );
  return [...refs, ...calls, ...variables];
}

function resolveRef(ref: Extract<Expr, { kind: 'ref' }>, visible: Visible, walk: Walk): Field | string {
  const outputs = visible.get(ref.module);
  if (!outputs)
    return walk.allIds.has(ref.module) ? `module ${ref.module} does not run before this point` : `there is no module ${ref.module}`;
  const field = fieldAt(outputs, ref.path);
  return typeof field === 'string' ? `module ${ref.module} ${field}` : field;
}

function outputsOf(module: Record<string, unknown>, spec: ModuleSpec | undefined, path: string, visible: Visible, walk: Walk): Field[] {
  if (spec?.outputsFromInterface)
    return isRecord(module.metadata) && isFieldList(module.metadata.interface) ? module.metadata.interface : [];
  const outputs = spec?.outputs?.(module, (mapped) => resolveSingleRef(mapped, visible, walk)) ?? [];
  if (typeof outputs !== 'string') return outputs;
  walk.problems.push({ path: `${path}.mapper`, message: outputs });
  return [];
}

function resolveSingleRef(mapped: unknown, visible: Visible, walk: Walk): Field | string {
  try {
    const parts = typeof mapped === 'string' ? parseTemplate(mapped) : [];
    const only = parts.length === 1 ? parts[0] : undefined;
    if (only?.kind !== 'formula' || only.expr.kind !== 'ref') return 'must be a single {{N.path}} reference';
    return resolveRef(only.expr, visible, walk);
  } catch (error) {
    if (error instanceof ExpressionError) return error.message;
    throw error;
  }
}

function checkPlaceholders(value: unknown, path: string): Problem[] {
  const problems: Problem[] = [];
  forEachText(value, path, (text, textPath) => {
    for (const [token] of text.matchAll(PLACEHOLDER_TOKEN)) {
      if (!(token in PLACEHOLDERS))
        problems.push({ path: textPath, message: `unknown placeholder ${token} (known: ${Object.keys(PLACEHOLDERS).join(', ')})` });
    }
  });
  return problems;
}

function forEachText(value: unknown, path: string, visit: (text: string, path: string) => void): void {
  if (typeof value === 'string') visit(value, path);
  else if (Array.isArray(value)) value.forEach((item, i) => forEachText(item, `${path}[${i}]`, visit));
  else if (isRecord(value)) for (const [key, item] of Object.entries(value)) forEachText(item, join(path, key), visit);
}
