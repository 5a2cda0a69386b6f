import express, { Router, type ErrorRequestHandler, type Request, type Response } from 'express';
import { httpStatusOf } from '../http/errors';
import type { ProjectDatabase } from '../project/project.database';
import { AppError } from '../shared/errors';
import type { Logger } from '../shared/logger';
import { GraphqlEngine, type GraphqlRequest } from './graphql.engine';

function sendError(res: Response, status: number, message: string): void {
  res.status(status).json({ errors: [{ message }] });
}

function parseGet(req: Request): GraphqlRequest {
  const q = req.query as Record<string, unknown>;
  let variables: Record<string, unknown> | null = null;
  if (typeof q.variables === 'string' && q.variables !== '') {
    try {
      variables = JSON.parse(q.variables) as Record<string, unknown>;
    } catch {
      throw new AppError('invalid_json', 'The variables parameter is not valid JSON');
    }
  }
  return { query: String(q.query ?? ''), variables, operationName: typeof q.operationName === 'string' ? q.operationName : null };
}

/** The project's GraphQL endpoint (`{project_url}/graphql/v1`): POST or GET, `apikey` header, optional user bearer JWT. */
export function projectGraphqlRouter(project: ProjectDatabase, logger: Logger): Router {
  const engine = new GraphqlEngine(project, undefined, (err) =>
    logger.error('project graphql request failed', { error: err instanceof Error ? err.message : String(err) }),
  );
  project.onClose(() => engine.close());
  const router = Router();
  router.use((req, res, next) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Allow-Headers', 'apikey, authorization, content-type, x-client-info');
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    next();
  });
  router.use(express.json({ limit: '1mb', type: () => true }));
  router.all('/', async (req, res) => {
    try {
      if (req.method !== 'GET' && req.method !== 'POST') throw new AppError('method_not_allowed', 'Use POST (or GET for queries)');
      const claims = project.authenticate(req.get('apikey') ?? undefined, req.get('authorization') ?? undefined);
      const body: unknown = req.method === 'GET' ? parseGet(req) : req.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body))
        throw new AppError('validation_failed', 'The body must be a JSON object');
      res.type('application/json').send(await engine.respond(body as GraphqlRequest, claims, { queriesOnly: req.method === 'GET' }));
    } catch (err) {
      if (err instanceof AppError) return sendError(res, httpStatusOf(err.code), err.detail);
      logger.error('project graphql request failed', { error: err instanceof Error ? err.message : String(err) });
      sendError(res, 500, 'Internal error');
    }
  });
  const bodyErrors: ErrorRequestHandler = (err: { type?: string }, _req, res, next) => {
    if (err?.type === 'entity.parse.failed') return sendError(res, 400, 'The request body is not valid JSON');
    if (err?.type === 'entity.too.large') return sendError(res, 413, 'The request body is larger than 1 MB');
    if (err?.type) return sendError(res, 400, 'The request body could not be read');
    next(err);
  };
  router.use(bodyErrors);
  return router;
}
