/** Test helpers of the service, for its own tests and for the connectors' and end-to-end suites (`@svc/service/testing`). */
export * from './core';
export * from './dashboard-client';
export * from './corpus';
export * from './fake-chat';
export * from './fake-room-media';
export * from './fake-llm';
export * from './fixtures';
export * from './harness';
export * from './receiver';
export * from './running-service';
export * from './postgres-server';
export * from './project';
export * from './room-client';
export * from './mcp-client';
export * from './rtp-sender';
export * from './speech';
export * from './composite-meeting';
