import type { IAuthenticateGeneric, Icon, ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

/** An svc API key and the base URL of the svc instance it belongs to. */
export class SvcApi implements ICredentialType {
  name = 'svcApi';

  displayName = 'Svc API';

  icon: Icon = { light: 'file:../icons/svc.svg', dark: 'file:../icons/svc.dark.svg' };

  documentationUrl = 'https://github.com/svc/svc/tree/main/n8n-nodes-svc#credentials';

  properties: INodeProperties[] = [
    {
      displayName: 'Base URL',
      name: 'baseUrl',
      type: 'string',
      default: '',
      placeholder: 'https://meet.example.com',
      description: 'Address of your svc instance, without /api/v1/public',
      required: true,
    },
    {
      displayName: 'API Key',
      name: 'apiKey',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      placeholder: 'svc_sk_...',
      description: 'A key created with `svc keys create`; the trigger also needs the webhooks:write scope',
      required: true,
    },
  ];

  authenticate: IAuthenticateGeneric = {
    type: 'generic',
    properties: {
      headers: {
        Authorization: '=Bearer {{$credentials.apiKey}}',
      },
    },
  };

  test: ICredentialTestRequest = {
    request: {
      baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}/api/v1/public',
      url: '/me',
    },
  };
}
