import type { Request, Response, Router } from 'express';
import type { Scope } from '../keys/scopes';
import { requireScope } from './auth';

/** HTTP methods the API uses. */
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** One endpoint: its method, Express path, the scope it needs (null: any valid key) and its handler. */
export interface RouteDef {
  method: Method;
  path: string;
  scope: Scope | null;
  handler: (req: Request, res: Response) => void | Promise<void>;
}

/** Registers routes on `router`, each behind its scope check. */
export function mountRoutes(router: Router, routes: RouteDef[]): void {
  for (const route of routes) {
    if (route.scope) router[route.method](route.path, requireScope(route.scope), route.handler);
    else router[route.method](route.path, route.handler);
  }
}

/** The OpenAPI form of an Express path: `/meetings/:id` -> `/meetings/{id}`. */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z_]+)/g, '{$1}');
}
