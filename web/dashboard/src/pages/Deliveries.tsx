import { Fragment, useState } from 'react';
import { api, type Page } from '../api';
import type { Delivery } from '../api-types';
import { Badge, Button, ErrorNotice, useAction, Table, useLoad, when } from '../ui';

const TONE = { pending: 'info', delivering: 'info', succeeded: 'ok', failed: 'bad' } as const;

/** The deliveries of a webhook endpoint or an integration, each with every attempt; webhook deliveries can be redelivered. */
export function Deliveries({ path, redeliver = false }: { path: string; redeliver?: boolean }) {
  const list = useLoad(() => api<Page<Delivery>>('GET', `${path}?limit=20`), [path]);
  const [open, setOpen] = useState<string>();
  const action = useAction();
  return (
    <div className="deliveries">
      <div className="card-head">
        <h3>Recent deliveries</h3>
        <Button onClick={list.reload} disabled={list.loading}>
          Refresh
        </Button>
      </div>
      <ErrorNotice error={list.error ?? action.error} />
      {list.data && list.data.data.length === 0 && <p className="empty">No deliveries yet.</p>}
      {list.data && list.data.data.length > 0 && (
        <Table headers={['Event', 'Status', 'Attempts', 'Created', <span className="sr-only">Actions</span>]}>
          {list.data.data.map((d) => (
            <Fragment key={d.id}>
              <tr className="delivery" data-delivery-id={d.id}>
                <td>
                  <code>{d.event_type}</code>
                </td>
                <td>
                  <Badge tone={TONE[d.status]}>{d.status}</Badge>
                </td>
                <td>{d.attempt_count}</td>
                <td>{when(d.created_at)}</td>
                <td>
                  <div className="row-actions">
                    <Button aria-expanded={open === d.id} onClick={() => setOpen(open === d.id ? undefined : d.id)}>
                      {open === d.id ? 'Hide attempts' : 'Attempts'}
                    </Button>
                    {redeliver && (
                      <Button
                        disabled={action.pending}
                        onClick={() =>
                          action.run(async () => {
                            await api('POST', `/v1/deliveries/${d.id}/redeliver`);
                            list.reload();
                          })
                        }
                      >
                        Redeliver
                      </Button>
                    )}
                  </div>
                </td>
              </tr>
              {open === d.id && (
                <tr className="attempts-row">
                  <td colSpan={5}>
                    {d.attempts.length === 0 ? (
                      <p className="empty">No attempt yet{d.next_attempt_at ? `; next at ${when(d.next_attempt_at)}` : ''}.</p>
                    ) : (
                      <ol className="attempts">
                        {d.attempts.map((a) => (
                          <li key={a.number} className="attempt">
                            <span>#{a.number}</span>
                            <Badge tone={a.status_code !== null && a.status_code < 300 ? 'ok' : 'bad'}>
                              {a.status_code ?? 'no answer'}
                            </Badge>
                            <span>{a.duration_ms} ms</span>
                            <span className="muted">{when(a.started_at)}</span>
                            {(a.error || a.response_body) && <code className="excerpt">{a.error ?? a.response_body}</code>}
                          </li>
                        ))}
                      </ol>
                    )}
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </Table>
      )}
    </div>
  );
}
