const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/** The host names the service answers to on its browser-facing and agent endpoints: the base URL's and loopback (DNS-rebinding protection). */
export function allowedHostnames(baseUrl: string): string[] {
  return [...new Set([new URL(baseUrl).hostname, ...LOOPBACK])];
}

/** True for an http(s) origin on a loopback host. */
export function isLoopbackOrigin(origin: URL): boolean {
  return LOOPBACK.includes(origin.hostname) && /^https?:$/.test(origin.protocol);
}
