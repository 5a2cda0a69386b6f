import type { Authentication, Bundle, ZObject } from 'zapier-platform-core';
import { apiRoot, apiUrl, type Me } from './api';

/** Checks the connection by asking svc who the key belongs to. */
export async function testConnection(z: ZObject, bundle: Bundle): Promise<Me> {
  if (!/^https?:\/\/[^/\s]+/.test(apiRoot(bundle))) {
    throw new z.errors.Error(
      'The base URL must start with https:// or http://, for example https://meet.example.com',
      'invalid_base_url',
      400,
    );
  }
  const response = await z.request<Me>({ url: apiUrl(bundle, '/me') });
  return response.data;
}

/** Names a connection after the key's owner and the key, from the answer of the connection test. */
export async function connectionLabel(_z: ZObject, bundle: Bundle): Promise<string> {
  const { user, key } = bundle.inputData as Me;
  return `${user.email} · ${key.name}`;
}

/** Custom authentication: the svc server's base URL and an API key. */
const authentication: Authentication = {
  type: 'custom',
  fields: [
    {
      key: 'base_url',
      label: 'Base URL',
      type: 'string',
      required: true,
      helpText: 'The address of your svc server, the same one people open to join meetings, for example `https://meet.example.com`.',
    },
    {
      key: 'api_key',
      label: 'API key',
      type: 'password',
      required: true,
      helpText:
        'A key starting with `svc_sk_`, created under **Settings → Developers** or with `npx svc keys create --name zapier --scopes ...`. ' +
        'Give it the scopes of what you use: `meetings:read`, `meetings:write`, `recordings:read`, `transcripts:read`, `webinars:write`, ' +
        'and `webhooks:write` so that triggers fire instantly.',
    },
  ],
  test: testConnection,
  connectionLabel,
};

export default authentication;
