import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

/** The three ways a customer's page embeds the room. */
export type HostPageKind = 'script-tag' | 'esm' | 'react';

/** What a host page is given: the service to embed from and the `SvcMeeting` options (as JSON: no container, no onEvent). */
export interface HostPageSettings {
  /** The service's URL: where the script tag loads `/embed/svc-embed.js` from, and `baseUrl` for the ES module and React pages. */
  serviceUrl: string;
  options?: Record<string, unknown>;
}

/** A running host-page server. */
export interface EmbedHost {
  port: number;
  /** `http://{host}:{port}`: the same server is a different origin under each host name (`localhost`, `127.0.0.1`, `a.localhost`). */
  origin(host: string): string;
  /** The host page of `kind` on `host` for `settings`. */
  url(host: string, kind: HostPageKind, settings: HostPageSettings): string;
  /** Every fake-room page requested so far (path and query), oldest first. */
  fakeRoomRequests(): string[];
  close(): Promise<void>;
}

const REPO_ROOT = path.resolve(__dirname, '../..');
const PAGES_DIR = path.join(__dirname, 'embed-host-pages');
const SDK_DIST = path.join(REPO_ROOT, 'embed/sdk/dist');
const REACT_DIST = path.join(REPO_ROOT, 'embed/react/dist');

/** The bundled page scripts, by the name they are served under (`/host/<name>.js`). */
type PageScripts = Record<HostPageKind | 'fake-room', string>;

/**
 * Serves, on 127.0.0.1, the host pages the embed browser tests open, all without inline scripts:
 * - `/script-tag.html`: `<script src="{serviceUrl}/embed/svc-embed.js">`, then `new SvcEmbed.SvcMeeting(options)`;
 * - `/esm.html`: a module script importing the built `@svc/embed` (served here at `/sdk/index.js`);
 * - `/react.html`: a React app (bundled once at start with esbuild) rendering `<SvcMeeting>` of `@svc/embed-react`.
 * Each page records the events in `window.__events`, every message in `window.__messages`, and exposes the instance
 * (React: the ref handle) as `window.__meeting` (see embed-host-pages/host-page.ts). The server can also stand in for
 * the service in the SDK's own tests: `/embed/svc-embed.js` from the build, and a fake room speaking protocol v1 at
 * `/{locale}/embed/...` (embed-host-pages/fake-room.ts).
 */
export async function startEmbedHost(opts: { port?: number } = {}): Promise<EmbedHost> {
  for (const file of [path.join(SDK_DIST, 'index.js'), path.join(SDK_DIST, 'svc-embed.js'), path.join(REACT_DIST, 'index.js')])
    if (!fs.existsSync(file)) throw new Error(`${file} is missing: build the embed packages (npm run build -w embed/sdk -w embed/react)`);
  const scripts = await bundlePageScripts();
  const fakeRoomRequests: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://host');
    const send = (status: number, type: string, body: string | Buffer) => {
      res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
      res.end(body);
    };
    const page = /^\/(script-tag|esm|react)\.html$/.exec(url.pathname)?.[1] as HostPageKind | undefined;
    if (page) return send(200, 'text/html; charset=utf-8', hostPageHtml(page, url.searchParams.get('service') ?? ''));
    const script = /^\/host\/(script-tag|esm|react|fake-room)\.js$/.exec(url.pathname)?.[1] as keyof PageScripts | undefined;
    if (script) return send(200, 'text/javascript; charset=utf-8', scripts[script]);
    if (url.pathname === '/sdk/index.js')
      return send(200, 'text/javascript; charset=utf-8', fs.readFileSync(path.join(SDK_DIST, 'index.js')));
    if (url.pathname === '/embed/svc-embed.js')
      return send(200, 'text/javascript; charset=utf-8', fs.readFileSync(path.join(SDK_DIST, 'svc-embed.js')));
    if (/^\/[^/]+\/embed\/./.test(url.pathname)) {
      fakeRoomRequests.push(`${url.pathname}${url.search}`);
      return send(200, 'text/html; charset=utf-8', FAKE_ROOM_HTML);
    }
    send(404, 'text/plain', 'not found');
  });
  const sockets = new Set<net.Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', resolve);
  });
  const port = (server.address() as net.AddressInfo).port;
  const origin = (host: string) => `http://${host}:${port}`;
  return {
    port,
    origin,
    url: (host, kind, settings) =>
      `${origin(host)}/${kind}.html?${new URLSearchParams({ service: settings.serviceUrl, options: JSON.stringify(settings.options ?? {}) })}`,
    fakeRoomRequests: () => [...fakeRoomRequests],
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A host page: a 800x600 `#meeting` box and its script (after the service's `svc-embed.js` for the script tag). */
function hostPageHtml(kind: HostPageKind, serviceUrl: string): string {
  const scripts =
    kind === 'script-tag'
      ? `<script src="${escapeHtml(`${serviceUrl}/embed/svc-embed.js`)}"></script>\n<script src="/host/script-tag.js"></script>`
      : `<script type="module" src="/host/${kind}.js"></script>`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Embed host page (${kind})</title>
<style>#meeting { width: 800px; height: 600px; }</style></head>
<body>
<h1>A customer's page</h1>
<div id="meeting"></div>
${scripts}
</body>
</html>
`;
}

const FAKE_ROOM_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Fake room</title></head>
<body><p>Fake room</p><script src="/host/fake-room.js"></script></body></html>
`;

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The ES module page imports `@svc/embed` from this server, as a customer's page would from its own assets. */
const sdkFromHostServer: Plugin = {
  name: 'sdk-from-host-server',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^@svc\/embed$/ }, () => ({ path: '/sdk/index.js', external: true }));
  },
};

/** Bundles the page scripts in memory (React and react-dom from the monorepo's node_modules, the embed packages from their builds). */
async function bundlePageScripts(): Promise<PageScripts> {
  const bundle = async (entry: string, format: 'iife' | 'esm', plugins: Plugin[] = []) => {
    const result = await build({
      entryPoints: [path.join(PAGES_DIR, entry)],
      absWorkingDir: REPO_ROOT,
      bundle: true,
      write: false,
      format,
      platform: 'browser',
      target: 'es2022',
      jsx: 'automatic',
      define: { 'process.env.NODE_ENV': '"production"' },
      logLevel: 'silent',
      plugins,
    });
    return result.outputFiles[0]!.text;
  };
  const [scriptTag, esm, react, fakeRoom] = await Promise.all([
    bundle('script-tag.ts', 'iife'),
    bundle('esm.ts', 'esm', [sdkFromHostServer]),
    bundle('react.tsx', 'iife'),
    bundle('fake-room.ts', 'iife'),
  ]);
  return { 'script-tag': scriptTag!, esm: esm!, react: react!, 'fake-room': fakeRoom! };
}
