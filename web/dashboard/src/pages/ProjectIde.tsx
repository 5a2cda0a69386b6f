import 'graphiql/setup-workers/vite';
import 'graphiql/style.css';
import { useGraphiQL, type GraphiQLPlugin } from '@graphiql/react';
import { GraphiQL, type GraphiQLProps } from 'graphiql';
import { useMemo, useState } from 'react';
import { api, NetworkError, type Session } from '../api';
import { Badge, Button, CopyField, ErrorNotice, messageOf, Section, Table, useAction, useLoad } from '../ui';
import { collectionsOf } from './collections';

interface ProjectInfo {
  url: string;
  graphql_url: string;
  anon_key: string;
  service_role_key: string;
  can_run_sql: boolean;
}

type KeyChoice = 'anon' | 'service_role' | 'user';

interface TableRls {
  schema: string;
  name: string;
  rls_enabled: boolean;
}

function CollectionsList() {
  const schema = useGraphiQL((s) => s.schema);
  const queryEditor = useGraphiQL((s) => s.queryEditor);
  if (!schema) return <p>Loading the schema…</p>;
  const collections = collectionsOf(schema);
  return (
    <div className="collections">
      <h2>Collections</h2>
      {collections.length === 0 && <p>No collections: create a table in the public schema (SQL runner below).</p>}
      <ul>
        {collections.map((c) => (
          <li key={c.name}>
            <button type="button" className="collection" onClick={() => queryEditor?.setValue(c.query)}>
              {c.name}
            </button>
          </li>
        ))}
      </ul>
      <p className="muted">Click a collection to insert a query of its first 10 rows.</p>
    </div>
  );
}

const collectionsPlugin: GraphiQLPlugin = {
  title: 'Collections',
  icon: () => <span aria-hidden="true">▤</span>,
  content: CollectionsList,
};

/** Project: the GraphQL IDE (GraphiQL) with a key selector and the collections, the project's URL and keys, and the owner's SQL runner. */
export default function ProjectIde(_props: { session: Session }) {
  const project = useLoad(() => api<ProjectInfo>('GET', '/project'), []);
  const [choice, setChoice] = useState<KeyChoice>('anon');
  const [sub, setSub] = useState('00000000-0000-4000-8000-000000000001');
  // Bumped after each SQL statement: the IDE is mounted afresh, so its schema and collections show the new tables.
  const [schemaEpoch, setSchemaEpoch] = useState(0);
  const [userToken, setUserToken] = useState<string>();
  const mint = useAction();
  const tables = useLoad(() => api<{ data: TableRls[] }>('GET', '/project/tables'), []);
  const info = project.data;

  const fetcher = useMemo<GraphiQLProps['fetcher']>(() => {
    const apikey = choice === 'service_role' ? info?.service_role_key : info?.anon_key;
    return async (params) => {
      const headers: Record<string, string> = { 'content-type': 'application/json', apikey: apikey ?? '' };
      if (choice === 'user' && userToken) headers.authorization = `Bearer ${userToken}`;
      try {
        const res = await fetch('/project/graphql/v1', { method: 'POST', headers, body: JSON.stringify(params) });
        return await res.json();
      } catch (err) {
        // Shown in the response pane as GraphQL errors are, worded as the dashboard's own (not the browser's).
        return { errors: [{ message: messageOf(err instanceof TypeError ? new NetworkError(err) : err) }] };
      }
    };
  }, [choice, info, userToken]);

  // A failed Refresh keeps the page shown with the error above it; only a failed first load has nothing else to show.
  if (!info) return project.error ? <ErrorNotice error={project.error} /> : <p className="loading">Loading…</p>;
  return (
    <>
      <div className="page-head">
        <h1>Project</h1>
        <Button
          disabled={project.loading || tables.loading}
          onClick={() => {
            project.reload();
            tables.reload();
          }}
        >
          Refresh
        </Button>
      </div>
      <ErrorNotice error={project.error} />
      {/* Refresh offline fails both loads alike: their one error shows once, above. */}
      <TablesSection
        tables={tables.data?.data}
        error={tables.error === project.error ? undefined : tables.error}
        onChange={tables.reload}
      />
      <Section title="GraphQL IDE">
        <div className="ide-bar">
          <label>
            Run as
            <select value={choice} onChange={(e) => setChoice(e.target.value as KeyChoice)}>
              <option value="anon">anon key</option>
              <option value="service_role">service_role key (bypasses RLS)</option>
              <option value="user">user token (authenticated)</option>
            </select>
          </label>
          {choice === 'user' && (
            <>
              <label>
                User id (sub)
                <input value={sub} onChange={(e) => setSub(e.target.value)} size={38} />
              </label>
              <Button
                onClick={() =>
                  mint.run(async () => {
                    setUserToken((await api<{ token: string }>('POST', '/project/user-token', { sub })).token);
                  })
                }
              >
                {userToken ? 'New user token' : 'Use this user'}
              </Button>
            </>
          )}
        </div>
        <ErrorNotice error={mint.error} />
        <div className="ide">
          <GraphiQL
            key={schemaEpoch}
            fetcher={fetcher}
            plugins={[collectionsPlugin]}
            visiblePlugin={collectionsPlugin}
            defaultQuery=""
            isHeadersEditorEnabled={false}
          />
        </div>
      </Section>
      <Section title="Connection">
        <CopyField label="Project URL" value={info.url} />
        <CopyField label="GraphQL endpoint" value={info.graphql_url} />
        <CopyField label="anon key" value={info.anon_key} />
        <CopyField label="service_role key (keep it on servers)" value={info.service_role_key} />
      </Section>
      {info.can_run_sql && (
        <SqlRunner
          onRun={() => {
            tables.reload();
            setSchemaEpoch((n) => n + 1);
          }}
        />
      )}
    </>
  );
}

/** The public tables with their row-level security, and "Enable RLS" for a table the anon key can read and write. */
function TablesSection({ tables, error, onChange }: { tables: TableRls[] | undefined; error: string | undefined; onChange: () => void }) {
  const enable = useAction();
  const open = tables?.filter((t) => !t.rls_enabled) ?? [];
  return (
    <Section title="Tables" id="project-tables">
      <ErrorNotice error={error ?? enable.error} />
      {open.length > 0 && (
        <p className="notice notice-warn" role="status">
          {open.length === 1 ? '1 table has' : `${open.length} tables have`} row-level security disabled: anyone with the anon key (public,
          in your web pages) can read and write {open.length === 1 ? 'it' : 'them'}. Enable RLS, then add policies for what each role may
          see.
        </p>
      )}
      {!tables && !error && <p className="muted">Loading the tables…</p>}
      {tables && tables.length === 0 && <p className="muted">No tables in the public schema yet.</p>}
      {tables && tables.length > 0 && (
        <Table headers={['Table', 'Row-level security', '']}>
          {tables.map((t) => (
            <tr key={t.name}>
              <td>
                <code>
                  {t.schema}.{t.name}
                </code>
              </td>
              <td>{t.rls_enabled ? <Badge tone="ok">RLS enabled</Badge> : <Badge tone="bad">RLS disabled</Badge>}</td>
              <td>
                {!t.rls_enabled && (
                  <Button
                    variant="primary"
                    aria-label={`Enable RLS on ${t.schema}.${t.name}`}
                    disabled={enable.pending}
                    onClick={() =>
                      enable.run(async () => {
                        await api('POST', `/project/tables/${encodeURIComponent(t.name)}/enable-rls`);
                        onChange();
                      })
                    }
                  >
                    Enable RLS
                  </Button>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
    </Section>
  );
}

function SqlRunner({ onRun }: { onRun: () => void }) {
  const [sql, setSql] = useState('');
  const [result, setResult] = useState<{ rows: Record<string, unknown>[]; affectedRows: number }>();
  const run = useAction();
  const columns = result?.rows[0] ? Object.keys(result.rows[0]) : [];
  return (
    <Section title="SQL runner">
      <form
        className="form"
        aria-label="SQL runner"
        onSubmit={(e) => {
          e.preventDefault();
          void run.run(async () => {
            const res = await api<{ results: { rows: Record<string, unknown>[]; affectedRows: number }[] }>('POST', '/project/sql', {
              sql,
            });
            setResult(res.results.at(-1) ?? { rows: [], affectedRows: 0 });
            onRun();
          });
        }}
      >
        <label>
          SQL (runs as the database owner)
          <textarea rows={6} value={sql} onChange={(e) => setSql(e.target.value)} spellCheck={false} />
        </label>
        <ErrorNotice error={run.error} />
        <div className="actions">
          <Button type="submit" variant="primary" disabled={run.pending || !sql.trim()}>
            Run SQL
          </Button>
        </div>
      </form>
      {result && columns.length === 0 && <p role="status">OK, {result.affectedRows} rows affected.</p>}
      {result && columns.length > 0 && (
        <div className="sql-result">
          <Table headers={columns}>
            {result.rows.map((row, i) => (
              <tr key={i}>
                {columns.map((c) => (
                  <td key={c}>
                    <code>{typeof row[c] === 'object' ? JSON.stringify(row[c]) : String(row[c])}</code>
                  </td>
                ))}
              </tr>
            ))}
          </Table>
        </div>
      )}
    </Section>
  );
}
