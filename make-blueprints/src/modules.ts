import { parseTemplate } from './expression';
import { arrayOf, collection, number, text, type Field } from './fields';
import {
  checkShape,
  either,
  isArray,
  isBoolean,
  isNumber,
  isObject,
  isPresent,
  isRecord,
  isText,
  listOf,
  oneOf,
  type Problem,
  type Rule,
} from './shape';
import { isSvcUrl, svcResponseFields } from './svc-api';

/** Resolves a mapped value that must be a single `{{N.path}}` reference to the field it names, or says why it cannot. */
export type Resolve = (mapped: unknown) => Field | string;

/** What the checker knows of one Make module type. */
export interface ModuleSpec {
  version: number;
  /** An instant trigger: allowed only as the first module of an instant scenario. */
  instant?: boolean;
  /** The outputs come from `metadata.interface` (a data structure Make stores with the module). */
  outputsFromInterface?: boolean;
  /** Rules for `parameters`; undefined for a module that has none. */
  parameters?: Record<string, Rule>;
  /** Rules for `mapper`; null for a module whose mapper is null. */
  mapper: Record<string, Rule> | null;
  /** Further rules on the whole module. */
  check?(module: Record<string, unknown>, path: string): Problem[];
  /** The module's output fields, or why they cannot be known. */
  outputs?(module: Record<string, unknown>, resolve: Resolve): Field[] | string;
}

/** The parameters of an HTTP v4 module that name account-bound things (keychains); a shipped blueprint leaves them 0, to be picked after import. */
export const HTTP_KEYCHAIN_PARAMETERS = ['apiKeyKeychain', 'basicAuthKeychain', 'oauthKeychain', 'certificateKeychain', 'proxyKeychain'];

const nameValue = listOf({ name: isText, value: isText });

const HTTP_MAPPER: Record<string, Rule> = {
  url: isText,
  method: oneOf('get', 'post', 'put', 'patch', 'delete'),
  headers: nameValue,
  queryParameters: nameValue,
  contentType: oneOf('', 'json'),
  parseResponse: isBoolean,
  stopOnHttpError: isBoolean,
  allowRedirects: isBoolean,
  shareCookies: isBoolean,
  requestCompressedContent: isBoolean,
};

function mapperOf(module: Record<string, unknown>): Record<string, unknown> {
  return isRecord(module.mapper) ? module.mapper : {};
}

function checkHttp(module: Record<string, unknown>, path: string): Problem[] {
  const mapper = mapperOf(module);
  const parameters = isRecord(module.parameters) ? module.parameters : {};
  const problems: Problem[] = [];
  if (mapper.contentType === 'json') {
    problems.push(...checkShape(mapper, { inputMethod: oneOf('jsonString'), jsonStringBodyContent: isText }, `${path}.mapper`));
    if (typeof mapper.jsonStringBodyContent === 'string')
      problems.push(...checkJsonBody(mapper.jsonStringBodyContent, `${path}.mapper.jsonStringBodyContent`));
  }
  if (parameters.authenticationType === 'apiKey' && parameters.apiKeyKeychain === undefined) {
    problems.push({
      path: `${path}.parameters.apiKeyKeychain`,
      message: 'is missing (an API key request names its keychain, 0 until picked)',
    });
  }
  for (const [i, header] of (Array.isArray(mapper.headers) ? mapper.headers : []).entries()) {
    if (isRecord(header) && String(header.name).toLowerCase() === 'authorization') {
      problems.push({
        path: `${path}.mapper.headers[${i}]`,
        message: 'an Authorization header keeps a credential in the scenario; use the keychain (authenticationType apiKey)',
      });
    }
  }
  if (typeof mapper.url === 'string' && isSvcUrl(mapper.url)) problems.push(...checkSvcCall(mapper, parameters, path));
  return problems;
}

function checkSvcCall(mapper: Record<string, unknown>, parameters: Record<string, unknown>, path: string): Problem[] {
  const problems: Problem[] = [];
  if (!svcResponseFields(String(mapper.method), String(mapper.url))) {
    problems.push({
      path: `${path}.mapper.url`,
      message: `${String(mapper.method).toUpperCase()} ${String(mapper.url)} is not an svc endpoint the checker knows`,
    });
  }
  if (parameters.authenticationType !== 'apiKey') {
    problems.push({
      path: `${path}.parameters.authenticationType`,
      message: 'an svc call must authenticate with the svc API key keychain (authenticationType apiKey)',
    });
  }
  return problems;
}

function checkJsonBody(data: string, path: string): Problem[] {
  let skeleton: string;
  try {
    skeleton = parseTemplate(data)
      .map((part) => (part.kind === 'literal' ? part.text : '0'))
      .join('');
  } catch {
    return [];
  }
  try {
    JSON.parse(skeleton);
    return [];
  } catch {
    return [{ path, message: 'is not JSON once each {{...}} is replaced by a value' }];
  }
}

function httpOutputs(module: Record<string, unknown>): Field[] {
  const mapper = mapperOf(module);
  const url = String(mapper.url);
  const data =
    mapper.parseResponse === true
      ? collection('data', (isSvcUrl(url) && svcResponseFields(String(mapper.method), url)) || [])
      : text('data');
  return [
    number('statusCode'),
    arrayOf('headers', [text('name'), text('value')]),
    arrayOf('cookieHeaders', [text('name'), text('value')]),
    data,
  ];
}

function iteratorOutputs(module: Record<string, unknown>, resolve: Resolve): Field[] | string {
  const array = resolve(mapperOf(module).array);
  if (typeof array === 'string') return array;
  if (array.type !== 'array') return `the iterated value must be an array, not ${array.type}`;
  return [...(array.spec ?? []), number('__IMTINDEX__'), number('__IMTLENGTH__')];
}

function variableOutputs(module: Record<string, unknown>): Field[] {
  const variables = mapperOf(module).variables;
  return (Array.isArray(variables) ? variables : []).filter(isRecord).map((variable) => text(String(variable.name)));
}

/** The module types the shipped blueprints use, by Make's module name. */
export const MODULES: Record<string, ModuleSpec> = {
  'gateway:CustomWebHook': {
    version: 1,
    instant: true,
    outputsFromInterface: true,
    parameters: { hook: isNumber, maxResults: isNumber },
    mapper: {},
  },
  'gateway:WebhookRespond': {
    version: 1,
    parameters: {},
    mapper: { status: either(isText, isNumber), body: isText, headers: listOf({ key: isText, value: isText }) },
    outputs: () => [],
  },
  'http:MakeRequest': {
    version: 4,
    parameters: { authenticationType: oneOf('noAuth', 'apiKey'), tlsType: oneOf('') },
    mapper: HTTP_MAPPER,
    check: checkHttp,
    outputs: httpOutputs,
  },
  'builtin:BasicRepeater': {
    version: 1,
    parameters: {},
    mapper: { start: either(isText, isNumber), repeats: either(isText, isNumber), step: either(isText, isNumber) },
    outputs: () => [number('i')],
  },
  'util:FunctionSleep': { version: 1, parameters: {}, mapper: { duration: either(isText, isNumber) }, outputs: () => [] },
  'util:SetVariables': {
    version: 1,
    parameters: {},
    mapper: { variables: listOf({ name: isText, value: isPresent }), scope: oneOf('roundtrip', 'execution') },
    outputs: variableOutputs,
  },
  'json:ParseJSON': { version: 1, outputsFromInterface: true, parameters: { type: either(isText, isNumber) }, mapper: { json: isText } },
  'json:TransformToJSON': {
    version: 1,
    parameters: { space: oneOf('', 'tab', '2', '4') },
    mapper: { object: isPresent },
    outputs: () => [text('json')],
  },
  'builtin:BasicRouter': { version: 1, mapper: null, check: (module, path) => checkShape(module, { routes: isArray }, path) },
  'builtin:BasicFeeder': { version: 1, parameters: {}, mapper: { array: isText }, outputs: iteratorOutputs },
  'datastore:GetRecord': {
    version: 1,
    outputsFromInterface: true,
    parameters: { datastore: isNumber },
    mapper: { key: isText, returnWrapped: isBoolean },
  },
  'datastore:AddRecord': {
    version: 1,
    parameters: { datastore: isNumber },
    mapper: { key: isText, data: isObject, overwrite: isBoolean },
    outputs: () => [text('key')],
  },
};
