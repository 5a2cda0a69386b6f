import { Router } from 'express';
import type { ProjectDatabase } from '../project/project.database';
import { enableRls, listTablesRls } from '../project/project.rls';

/**
 * The project database's public tables with their row-level security flag, and "Enable RLS" for one of them. Mounted
 * under `/project`, which only owners and admins reach (like the SQL runner).
 */
export function projectTablesRouter(projectOf: () => ProjectDatabase): Router {
  const router = Router();
  router.get('/project/tables', async (_req, res) => {
    res.json({ data: await projectOf().asOwner((client) => listTablesRls(client)) });
  });
  router.post('/project/tables/:name/enable-rls', async (req, res) => {
    const name = String(req.params.name);
    res.json(await projectOf().asOwner((client) => enableRls(client, name)));
  });
  return router;
}
