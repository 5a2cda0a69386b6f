import type { ActiveSession } from '../dashboard/dashboard.service';
import type { Principal } from '../identity/identity.service';

declare module 'express-serve-static-core' {
  interface Request {
    /** The X-Request-Id of this request, echoed on the response and in every problem. */
    requestId: string;
    /** The caller, once a valid API key has been presented. */
    principal?: Principal;
    /** The dashboard session, on the dashboard's API once its cookie has been checked. */
    dashboardSession?: ActiveSession;
  }
}

export {};
