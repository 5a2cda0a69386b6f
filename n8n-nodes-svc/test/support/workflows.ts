/** A node in n8n's workflow export format. */
export interface WorkflowNode {
  id: string;
  name: string;
  type: string;
  typeVersion: number;
  position: [number, number];
  parameters: Record<string, unknown>;
  credentials?: Record<string, { id: string; name: string }>;
  webhookId?: string;
  onError?: 'stopWorkflow' | 'continueRegularOutput';
}

/** The id and name of the svc credential every built workflow uses. */
export const SVC_CREDENTIAL = { id: 'svcCredentialE2e', name: 'svc e2e' };

/** An `n8n import:credentials` file with one svc credential. */
export function svcCredentialExport(baseUrl: string, apiKey: string): unknown[] {
  return [{ ...SVC_CREDENTIAL, type: 'svcApi', data: { baseUrl, apiKey } }];
}

/** A node of this package (`svc`, `svcTrigger` or `svcFeedTrigger`) using the svc credential; nodes are laid out top to bottom in the order built, which is the order n8n runs sibling branches in. */
export function svcNode(
  typePrefix: string,
  type: 'svc' | 'svcTrigger' | 'svcFeedTrigger',
  name: string,
  row: number,
  parameters: Record<string, unknown>,
  extra: Partial<WorkflowNode> = {},
): WorkflowNode {
  return {
    id: `node-${row}`,
    name,
    type: `${typePrefix}.${type}`,
    typeVersion: 1,
    position: [type === 'svc' ? 400 : 0, row * 120],
    parameters,
    credentials: { svcApi: SVC_CREDENTIAL },
    ...extra,
  };
}

/** A resource locator parameter value, as the editor stores one. */
export function locator(mode: string, value: string): { __rl: true; mode: string; value: string } {
  return { __rl: true, mode, value };
}

/** n8n's manual trigger, the start of a workflow run by `n8n execute`. */
export function manualTrigger(name = 'Start'): WorkflowNode {
  return { id: 'node-start', name, type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} };
}

/** An HTTP Request node that POSTs its input item as JSON to `url`. */
export function forwardTo(url: string, name = 'Forward'): WorkflowNode {
  return {
    id: 'node-forward',
    name,
    type: 'n8n-nodes-base.httpRequest',
    typeVersion: 4.2,
    position: [400, 0],
    parameters: { method: 'POST', url, sendBody: true, specifyBody: 'json', jsonBody: '={{ JSON.stringify($json) }}', options: {} },
  };
}

/** An `n8n import:workflow` file: `edges` are [from, to] pairs on the main output. */
export function workflowExport(id: string, name: string, nodes: WorkflowNode[], edges: [string, string][]): Record<string, unknown> {
  const connections: Record<string, { main: { node: string; type: 'main'; index: 0 }[][] }> = {};
  for (const [from, to] of edges) {
    connections[from] ??= { main: [[]] };
    connections[from].main[0]!.push({ node: to, type: 'main', index: 0 });
  }
  return { id, name, active: false, nodes, connections, settings: { executionOrder: 'v1' }, pinData: {} };
}
