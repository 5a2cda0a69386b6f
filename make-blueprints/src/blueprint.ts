import fs from 'node:fs';
import path from 'node:path';
import type { Field } from './fields';

/** One condition of a Make filter: `a o b`. */
export interface Condition {
  a: string;
  o: string;
  b?: string;
}

/** A Make filter on the link into a module: OR over groups, AND inside a group. */
export interface Filter {
  name: string;
  conditions: Condition[][];
}

/** One module of a blueprint's flow, as Make exports it. */
export interface BlueprintModule {
  id: number;
  module: string;
  version: number;
  parameters?: Record<string, unknown>;
  mapper: Record<string, unknown> | null;
  metadata: { designer: { x: number; y: number }; interface?: Field[]; restore?: unknown };
  filter?: Filter;
  routes?: { flow: BlueprintModule[] }[];
}

/** A scenario blueprint in the JSON format Make exports and imports. */
export interface Blueprint {
  name: string;
  flow: BlueprintModule[];
  metadata: {
    instant: boolean;
    version: number;
    scenario: Record<string, unknown>;
    designer: { orphans: unknown[] };
    zone: string;
  };
}

/** The placeholder texts a user replaces after import, each with what it stands for. */
export const PLACEHOLDERS: Record<string, string> = {
  YOUR_SVC_BASE_URL: 'the base URL of your svc, e.g. https://meet.example.com',
  YOUR_SVC_WEBHOOK_SECRET: 'the signing secret (whsec_...) shown when you created the svc webhook endpoint',
  YOUR_SHEET_ENDPOINT_URL: 'the URL that appends a row to your sheet (an Apps Script web app, a Sheets-like API, ...)',
};

/** A placeholder-looking token in a blueprint's text. */
export const PLACEHOLDER_TOKEN = /YOUR_[A-Z0-9_]+/g;

const BLUEPRINTS_DIR = path.join(__dirname, '..', 'blueprints');

/** Every shipped blueprint file with its parsed (unchecked) JSON, in file name order. */
export function shippedBlueprints(): { file: string; json: unknown }[] {
  return fs
    .readdirSync(BLUEPRINTS_DIR)
    .filter((file) => file.endsWith('.blueprint.json'))
    .sort()
    .map((file) => ({ file, json: JSON.parse(fs.readFileSync(path.join(BLUEPRINTS_DIR, file), 'utf8')) as unknown }));
}

/** The shipped blueprint in `file`, typed; run checkBlueprint on it before trusting the type. */
export function loadBlueprint(file: string): Blueprint {
  return JSON.parse(fs.readFileSync(path.join(BLUEPRINTS_DIR, file), 'utf8')) as Blueprint;
}
