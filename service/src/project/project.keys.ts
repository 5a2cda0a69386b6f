import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../shared/errors';
import { API_ROLES, type ApiRole } from './project.setup';

/** The claims a request runs with; `role` is one of the API roles. */
export interface JwtClaims {
  role: ApiRole;
  sub?: string;
  exp?: number;
  iat?: number;
  [claim: string]: unknown;
}

function b64url(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url');
}

/** Signs `claims` as an HS256 JWT. */
export function signJwt(claims: Record<string, unknown>, secret: string): string {
  const head = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = b64url(JSON.stringify(claims));
  const sig = crypto.createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}

const unauthorized = (detail: string) => new AppError('unauthorized', detail);

/** Verifies an HS256 JWT (signature, `exp`, `nbf`, a known `role`); anything else is `unauthorized`. */
export function verifyJwt(token: string, secret: string, nowSeconds: number): JwtClaims {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p))) throw unauthorized('The key is not a JWT');
  const [head, body, sig] = parts as [string, string, string];
  let header: unknown;
  let claims: unknown;
  try {
    header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8'));
    claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw unauthorized('The key is not a JWT');
  }
  if (typeof header !== 'object' || header === null || (header as { alg?: unknown }).alg !== 'HS256') {
    throw unauthorized('The key must be signed with HS256');
  }
  // Compared as text: decoding would accept the other last characters whose unused low bits differ.
  const expected = Buffer.from(crypto.createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url'));
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) throw unauthorized('The key has an invalid signature');
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) throw unauthorized('The key has no claims');
  const c = claims as Record<string, unknown>;
  if (!API_ROLES.includes(c.role as ApiRole)) throw unauthorized('The key has no valid role claim');
  checkJwtTimes(c as JwtClaims, nowSeconds);
  return Object.freeze(c) as JwtClaims;
}

/** Checks a verified token's `exp` and `nbf` against `nowSeconds`: on every use, also when its signature check was cached. */
export function checkJwtTimes(c: JwtClaims, nowSeconds: number): void {
  if (c.exp !== undefined && (typeof c.exp !== 'number' || c.exp <= nowSeconds)) throw unauthorized('The key has expired');
  if (c.nbf !== undefined && (typeof c.nbf !== 'number' || c.nbf > nowSeconds)) throw unauthorized('The key is not valid yet');
}

/** The project's JWT secret: `override` when given, else a file in the data directory created at first start. */
export function loadJwtSecret(dataDir: string, override: string | undefined): string {
  if (override) return override;
  const file = path.join(dataDir, 'project-jwt-secret');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const secret = crypto.randomBytes(32).toString('base64url');
  try {
    fs.writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return fs.readFileSync(file, 'utf8').trim();
    throw err;
  }
}

/** Ten years, as Supabase's project keys. */
const KEY_LIFETIME_SECONDS = 10 * 365 * 24 * 3600;

const KEYS_ISSUED_AT = 1_735_689_600;

/** The anon and service_role keys of a secret: the same on every start, as long as the secret stays. */
export function projectKeys(secret: string, iat = KEYS_ISSUED_AT): { anon: string; serviceRole: string } {
  const base = { iss: 'svc', iat, exp: iat + KEY_LIFETIME_SECONDS };
  return { anon: signJwt({ ...base, role: 'anon' }, secret), serviceRole: signJwt({ ...base, role: 'service_role' }, secret) };
}
