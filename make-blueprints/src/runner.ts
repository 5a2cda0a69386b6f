import { PLACEHOLDER_TOKEN, type Blueprint, type BlueprintModule, type Filter } from './blueprint';
import { ExpressionError, parseTemplate, type Expr } from './expression';
import { FILTER_OPERATORS } from './filters';
import { MAKE_FUNCTIONS, MAKE_VARIABLES, MakeFunctionError, textOf } from './functions';
import { isRecord } from './shape';

/** A module's output bundle: the fields later modules map as `{{N.field}}`. */
export type Bundle = Record<string, unknown>;

/** What one run needs besides the blueprint. */
export interface RunOptions {
  /** A value for every placeholder text the blueprint contains (YOUR_SVC_BASE_URL, ...). */
  placeholders: Record<string, string>;
  /** The bundle the first module emits when it is a webhook: what Make made of the incoming request. */
  trigger?: Bundle;
  /** The data store's records by key; pass the same map to several runs to keep what they stored. */
  dataStore?: Map<string, Bundle>;
  /** The clock behind Make's `timestamp` variable, in milliseconds. */
  now?: () => number;
  /** The API key keychain that `authenticationType: apiKey` modules use: its header name and key (as Make's keychain holds them). */
  keychain?: { name: string; key: string };
  /** What the Sleep module does; the default waits for real. Tests pass one that records the seconds. */
  sleep?: (seconds: number) => Promise<void>;
}

/** One request an HTTP module sent, with the status it got back. */
export interface SentRequest {
  moduleId: number;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  statusCode: number;
}

/** What a Webhook response module answered the webhook's caller. */
export interface WebhookResponse {
  moduleId: number;
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Everything a run did: each module's output bundles in execution order, the requests sent and the webhook answer. */
export interface RunResult {
  outputs: { moduleId: number; bundle: Bundle }[];
  requests: SentRequest[];
  response?: WebhookResponse;
}

/** A run that stopped: a module failed or the blueprint uses something the runner does not support. */
export class RunError extends Error {
  override readonly name = 'RunError';

  constructor(
    readonly moduleId: number,
    message: string,
  ) {
    super(`module ${moduleId}: ${message}`);
  }
}

interface Run {
  trigger?: Bundle;
  dataStore: Map<string, Bundle>;
  now: () => number;
  keychain?: { name: string; key: string };
  sleep: (seconds: number) => Promise<void>;
  result: RunResult;
}

type Context = ReadonlyMap<number, Bundle>;

type Executor = (module: BlueprintModule, mapper: Record<string, unknown>, run: Run) => Bundle[] | Promise<Bundle[]>;

const HTTP_FIELDS = new Set([
  'url',
  'method',
  'headers',
  'queryParameters',
  'contentType',
  'inputMethod',
  'jsonStringBodyContent',
  'parseResponse',
  'stopOnHttpError',
]);
const HTTP_DEFAULTS: Record<string, unknown> = { allowRedirects: true, shareCookies: false, requestCompressedContent: true };
const SLEEP_MAX_SECONDS = 300;

/** Runs a blueprint the way Make would, module by module and bundle by bundle, sending its HTTP modules' requests for real. */
export async function runBlueprint(blueprint: Blueprint, options: RunOptions): Promise<RunResult> {
  const run: Run = {
    trigger: options.trigger,
    dataStore: options.dataStore ?? new Map(),
    now: options.now ?? Date.now,
    keychain: options.keychain,
    sleep: options.sleep ?? ((seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000))),
    result: { outputs: [], requests: [] },
  };
  await runFrom(withPlaceholders(blueprint.flow, options.placeholders), 0, new Map(), run);
  return run.result;
}

function withPlaceholders(flow: BlueprintModule[], values: Record<string, string>): BlueprintModule[] {
  const tokens = new Set([...JSON.stringify(flow).matchAll(PLACEHOLDER_TOKEN)].map(([token]) => token));
  const missing = [...tokens].filter((token) => values[token] === undefined);
  if (missing.length > 0) throw new Error(`no value given for the placeholder(s) ${missing.join(', ')}`);
  return replaceTexts(flow, (text) => text.replace(PLACEHOLDER_TOKEN, (token) => values[token]!)) as BlueprintModule[];
}

function replaceTexts(value: unknown, replace: (text: string) => string): unknown {
  if (typeof value === 'string') return replace(value);
  if (Array.isArray(value)) return value.map((item) => replaceTexts(item, replace));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, replaceTexts(item, replace)]));
  return value;
}

async function runFrom(flow: BlueprintModule[], index: number, context: Context, run: Run): Promise<void> {
  const module = flow[index];
  if (!module) return;
  if (module.filter && !passes(module.filter, module.id, context, run)) return;
  if (module.module === 'builtin:BasicRouter') {
    for (const route of module.routes ?? []) await runFrom(route.flow, 0, context, run);
    return;
  }
  const executor = EXECUTORS[module.module];
  if (!executor) throw new RunError(module.id, `the runner does not support ${module.module}`);
  const mapper = evaluate(module.mapper ?? {}, module.id, context, run) as Record<string, unknown>;
  for (const bundle of await executor(module, mapper, run)) {
    run.result.outputs.push({ moduleId: module.id, bundle });
    await runFrom(flow, index + 1, new Map(context).set(module.id, bundle), run);
  }
}

function passes(filter: Filter, moduleId: number, context: Context, run: Run): boolean {
  return filter.conditions.some((group) =>
    group.every((condition) => {
      const operator = FILTER_OPERATORS[condition.o];
      if (!operator) throw new RunError(moduleId, `the runner does not support the filter operator ${condition.o}`);
      const b = condition.b === undefined ? undefined : evaluateText(condition.b, moduleId, context, run);
      return operator(evaluateText(condition.a, moduleId, context, run), b);
    }),
  );
}

function evaluate(value: unknown, moduleId: number, context: Context, run: Run): unknown {
  if (typeof value === 'string') return evaluateText(value, moduleId, context, run);
  if (Array.isArray(value)) return value.map((item) => evaluate(item, moduleId, context, run));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, evaluate(item, moduleId, context, run)]));
  return value;
}

/** A mapped text: a lone formula keeps its value's type, anything else is joined into text. */
function evaluateText(text: string, moduleId: number, context: Context, run: Run): unknown {
  try {
    const parts = parseTemplate(text);
    const only = parts.length === 1 ? parts[0] : undefined;
    if (only?.kind === 'formula') return evaluateExpr(only.expr, moduleId, context, run);
    return parts.map((part) => (part.kind === 'literal' ? part.text : textOf(evaluateExpr(part.expr, moduleId, context, run)))).join('');
  } catch (error) {
    if (error instanceof ExpressionError || error instanceof MakeFunctionError) throw new RunError(moduleId, error.message);
    throw error;
  }
}

function evaluateExpr(expr: Expr, moduleId: number, context: Context, run: Run): unknown {
  const inner = (e: Expr) => evaluateExpr(e, moduleId, context, run);
  switch (expr.kind) {
    case 'text':
    case 'number':
      return expr.value;
    case 'ref':
      return lookUp(expr, moduleId, context);
    case 'var': {
      const variable = MAKE_VARIABLES[expr.name];
      if (!variable) throw new RunError(moduleId, `the runner does not support the variable ${expr.name}`);
      return variable(run.now());
    }
    case 'call': {
      const fn = MAKE_FUNCTIONS[expr.name];
      if (!fn) throw new RunError(moduleId, `the runner does not support the function ${expr.name}()`);
      if (expr.args.length < fn.minArgs || expr.args.length > fn.maxArgs)
        throw new RunError(moduleId, `${expr.name}() got ${expr.args.length} arguments`);
      return fn.apply(expr.args.map(inner));
    }
    case 'binary':
      return arithmetic(expr.op, inner(expr.left), inner(expr.right), moduleId);
  }
}

function lookUp(ref: Extract<Expr, { kind: 'ref' }>, moduleId: number, context: Context): unknown {
  const bundle = context.get(ref.module);
  const name = `{{${ref.module}.${ref.path.join('.')}}}`;
  if (!bundle) throw new RunError(moduleId, `${name} refers to module ${ref.module}, which has not run on this path`);
  return ref.path.reduce<unknown>((value, key) => {
    if (Array.isArray(value)) throw new RunError(moduleId, `${name} steps into an array; Make needs map() or an iterator there`);
    return isRecord(value) ? value[key] : undefined;
  }, bundle);
}

function arithmetic(op: '+' | '-', left: unknown, right: unknown, moduleId: number): unknown {
  if (op === '+') return typeof left === 'number' && typeof right === 'number' ? left + right : textOf(left) + textOf(right);
  if (typeof left !== 'number' || typeof right !== 'number')
    throw new RunError(moduleId, `cannot subtract ${JSON.stringify(right)} from ${JSON.stringify(left)}`);
  return left - right;
}

function listOfPairs(value: unknown, key: string, moduleId: number): [string, string][] {
  if (!Array.isArray(value)) throw new RunError(moduleId, 'expected a list of pairs');
  return value.map((item) => {
    if (!isRecord(item)) throw new RunError(moduleId, 'expected a list of pairs');
    return [textOf(item[key]), textOf(item.value)];
  });
}

function checkHttpOptions(module: BlueprintModule, mapper: Record<string, unknown>): void {
  for (const [option, value] of Object.entries(mapper)) {
    if (HTTP_FIELDS.has(option)) continue;
    if (!(option in HTTP_DEFAULTS)) throw new RunError(module.id, `the runner does not support the HTTP option ${option}`);
    if (value !== HTTP_DEFAULTS[option])
      throw new RunError(module.id, `the runner supports ${option} only as ${JSON.stringify(HTTP_DEFAULTS[option])}`);
  }
  if (mapper.contentType !== 'json' && mapper.contentType !== '' && mapper.contentType !== undefined)
    throw new RunError(module.id, `the runner does not support the content type ${JSON.stringify(mapper.contentType)}`);
  if (mapper.contentType === 'json' && mapper.inputMethod !== 'jsonString')
    throw new RunError(module.id, 'the runner supports a JSON body only as a JSON string (inputMethod jsonString)');
  const auth = module.parameters?.authenticationType;
  if (auth !== 'noAuth' && auth !== 'apiKey')
    throw new RunError(module.id, `the runner does not support the authentication type ${String(auth)}`);
}

/** HTTP v4 "Make a request": the keychain's header for an API key request; a 4xx/5xx is an error only with stopOnHttpError. */
async function sendHttp(module: BlueprintModule, mapper: Record<string, unknown>, run: Run): Promise<Bundle[]> {
  checkHttpOptions(module, mapper);
  const method = textOf(mapper.method).toUpperCase();
  const url = new URL(textOf(mapper.url));
  for (const [name, value] of listOfPairs(mapper.queryParameters ?? [], 'name', module.id)) url.searchParams.append(name, value);
  const headers = Object.fromEntries(listOfPairs(mapper.headers ?? [], 'name', module.id));
  if (module.parameters?.authenticationType === 'apiKey') {
    if (!run.keychain) throw new RunError(module.id, 'an API key request needs the keychain (RunOptions.keychain)');
    headers[run.keychain.name] = run.keychain.key;
  }
  let body: string | undefined;
  if (mapper.contentType === 'json') {
    headers['Content-Type'] = 'application/json';
    body = textOf(mapper.jsonStringBodyContent);
  }
  const response = await fetch(url, { method, headers, body });
  const raw = await response.text();
  run.result.requests.push({ moduleId: module.id, method, url: url.toString(), headers, body, statusCode: response.status });
  if (mapper.stopOnHttpError === true && response.status >= 400) {
    throw new RunError(module.id, `${method} ${url.toString()} answered ${response.status}: ${raw.slice(0, 300)}`);
  }
  const isJson = /\bjson\b/i.test(response.headers.get('content-type') ?? '');
  const data = mapper.parseResponse === true && isJson && raw !== '' ? (JSON.parse(raw) as unknown) : raw;
  return [
    { statusCode: response.status, headers: [...response.headers].map(([name, value]) => ({ name, value })), cookieHeaders: [], data },
  ];
}

/** Repeater: `repeats` bundles with `i` counting from `start` by `step`; each runs through the rest of the flow before the next. */
function repeat(module: BlueprintModule, mapper: Record<string, unknown>): Bundle[] {
  const [start, repeats, step] = [mapper.start, mapper.repeats, mapper.step].map(Number);
  if (!Number.isInteger(repeats) || repeats! < 1 || repeats! > 10_000) throw new RunError(module.id, 'repeats must be 1 to 10000');
  return Array.from({ length: repeats! }, (_, k) => ({ i: start! + k * step! }));
}

/** Sleep: waits `duration` seconds, at most 300 as in Make. */
async function sleepFor(module: BlueprintModule, mapper: Record<string, unknown>, run: Run): Promise<Bundle[]> {
  const seconds = Number(mapper.duration);
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > SLEEP_MAX_SECONDS)
    throw new RunError(module.id, `the delay must be 0 to ${SLEEP_MAX_SECONDS} seconds, not ${JSON.stringify(mapper.duration)}`);
  await run.sleep(seconds);
  return [{}];
}

function iterate(module: BlueprintModule, mapper: Record<string, unknown>): Bundle[] {
  const items = mapper.array;
  if (!Array.isArray(items) || !items.every(isRecord)) throw new RunError(module.id, 'the iterator needs an array of collections');
  return items.map((item, i) => ({ ...item, __IMTINDEX__: i + 1, __IMTLENGTH__: items.length }));
}

function respond(module: BlueprintModule, mapper: Record<string, unknown>, run: Run): Bundle[] {
  if (run.result.response) throw new RunError(module.id, 'a second Webhook response in one execution');
  const status = Number(mapper.status);
  if (!Number.isInteger(status) || status < 100 || status > 599)
    throw new RunError(module.id, `invalid response status ${JSON.stringify(mapper.status)}`);
  const headers = Object.fromEntries(listOfPairs(mapper.headers, 'key', module.id));
  run.result.response = { moduleId: module.id, status, headers, body: textOf(mapper.body) };
  return [{}];
}

function parseJson(module: BlueprintModule, mapper: Record<string, unknown>): Bundle[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(textOf(mapper.json));
  } catch {
    throw new RunError(module.id, 'the text to parse is not JSON');
  }
  if (!isRecord(parsed)) throw new RunError(module.id, 'the runner parses only a JSON object (Make would emit one bundle per array item)');
  return [parsed];
}

function transformToJson(module: BlueprintModule, mapper: Record<string, unknown>): Bundle[] {
  if (module.parameters?.space) throw new RunError(module.id, 'the runner does not support indented JSON');
  if (mapper.object === undefined) throw new RunError(module.id, 'there is nothing to transform to JSON');
  return [{ json: JSON.stringify(mapper.object) }];
}

function getRecord(module: BlueprintModule, mapper: Record<string, unknown>, run: Run): Bundle[] {
  if (mapper.returnWrapped !== false) throw new RunError(module.id, 'the runner supports returnWrapped only as false');
  return [{ ...run.dataStore.get(textOf(mapper.key)) }];
}

function addRecord(module: BlueprintModule, mapper: Record<string, unknown>, run: Run): Bundle[] {
  const key = textOf(mapper.key);
  if (!isRecord(mapper.data)) throw new RunError(module.id, 'a record needs a data collection');
  if (run.dataStore.has(key) && mapper.overwrite !== true) throw new RunError(module.id, `the data store already has the key ${key}`);
  run.dataStore.set(key, mapper.data);
  return [{ key }];
}

/**
 * The bundle a Custom webhook with JSON pass-through and "Get request headers" on hands on, as the README assumes Make
 * builds it: the exact body bytes decoded as UTF-8 into `value`, each header as `{name, value}` with a lower-case name.
 */
export function webhookBundleOf(request: {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
}): Bundle {
  return {
    value: request.rawBody.toString('utf8'),
    __IMTHEADERS__: Object.entries(request.headers).flatMap(([name, value]) =>
      value === undefined ? [] : [{ name: name.toLowerCase(), value: Array.isArray(value) ? value.join(', ') : value }],
    ),
    __IMTMETHOD__: request.method,
  };
}

/** Refuses a trigger bundle that breaks what the signature check assumes: the raw body as text, header names in lower case. */
function checkPassThrough(module: BlueprintModule, trigger: Bundle): void {
  const fields = new Set((module.metadata.interface ?? []).map((field) => field.name));
  if (fields.has('value') && typeof trigger.value !== 'string') {
    throw new RunError(module.id, 'the webhook declares JSON pass-through: the raw body must arrive as text in `value`');
  }
  if (!fields.has('__IMTHEADERS__')) return;
  const headers = trigger.__IMTHEADERS__;
  if (!Array.isArray(headers) || !headers.every((h) => isRecord(h) && typeof h.name === 'string' && typeof h.value === 'string')) {
    throw new RunError(module.id, 'the webhook declares "Get request headers": __IMTHEADERS__ must be a list of {name, value}');
  }
  const upper = headers.find((h) => (h as { name: string }).name !== (h as { name: string }).name.toLowerCase());
  if (upper) throw new RunError(module.id, `header names arrive in lower case, not ${JSON.stringify((upper as { name: string }).name)}`);
}

function webhookTrigger(module: BlueprintModule, _mapper: Record<string, unknown>, run: Run): Bundle[] {
  if (!run.trigger) throw new RunError(module.id, 'a webhook scenario needs the trigger bundle (what the webhook received)');
  checkPassThrough(module, run.trigger);
  return [run.trigger];
}

function setVariables(module: BlueprintModule, mapper: Record<string, unknown>): Bundle[] {
  if (!Array.isArray(mapper.variables)) throw new RunError(module.id, 'expected a list of variables');
  return [Object.fromEntries(mapper.variables.filter(isRecord).map((variable) => [textOf(variable.name), variable.value]))];
}

const EXECUTORS: Record<string, Executor> = {
  'gateway:CustomWebHook': webhookTrigger,
  'gateway:WebhookRespond': respond,
  'http:MakeRequest': sendHttp,
  'builtin:BasicRepeater': repeat,
  'util:FunctionSleep': sleepFor,
  'util:SetVariables': setVariables,
  'json:ParseJSON': parseJson,
  'json:TransformToJSON': transformToJson,
  'builtin:BasicFeeder': iterate,
  'datastore:GetRecord': getRecord,
  'datastore:AddRecord': addRecord,
};
