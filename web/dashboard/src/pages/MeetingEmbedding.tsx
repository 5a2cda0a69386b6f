import { useState } from 'react';
import { api, ApiError } from '../api';
import type { Meeting } from '../api-types';
import { Button, ErrorNotice, Section, useAction, useLoad } from '../ui';

/** The parent origins allowed to frame the meeting's room, edited as one entry per line, and a snippet to embed it. */
export function Embedding({ meeting: m, baseUrl }: { meeting: Meeting; baseUrl: string }) {
  const loaded = useLoad(() => api<{ origins: string[] }>('GET', `/v1/meetings/${m.id}/embed-origins`), [m.id]);
  const [draft, setDraft] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const save = useAction();
  const stored = loaded.data?.origins ?? [];
  const text = draft ?? stored.join('\n');
  const entries = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const snippet = [
    `<div id="meeting" style="height: 640px"></div>`,
    `<script src="${baseUrl}/embed/svc-embed.js"></script>`,
    `<script>`,
    `  new SvcEmbed.SvcMeeting({ container: '#meeting', meetingCode: '${m.code}' });`,
    `</script>`,
  ].join('\n');
  return (
    <Section title="Embedding" id="embedding">
      <ErrorNotice error={loaded.error} />
      <form
        className="form"
        onSubmit={(event) => {
          event.preventDefault();
          setSaved(false);
          void save.run(async () => {
            try {
              const result = await api<{ origins: string[] }>('PUT', `/v1/meetings/${m.id}/embed-origins`, { origins: entries });
              setDraft(result.origins.join('\n'));
              setSaved(true);
              loaded.reload();
            } catch (err) {
              // Name the entry, not its index: "origins[1] must use https://" -> "http://x.example.com: must use https://".
              if (err instanceof ApiError)
                throw new ApiError(
                  err.status,
                  err.code,
                  err.detail.replace(/origins\[(\d+)\]/g, (_, i) => `${entries[Number(i)]}:`),
                );
              throw err;
            }
          });
        }}
      >
        <label htmlFor="embed-origins">Sites allowed to embed this meeting, one origin per line</label>
        <textarea
          id="embed-origins"
          rows={3}
          spellCheck={false}
          placeholder={'https://app.example.com\nhttps://*.example.org'}
          value={text}
          onChange={(event) => {
            setDraft(event.target.value);
            setSaved(false);
          }}
        />
        <p className="hint">
          <code>https://host[:port]</code> or <code>https://*.host</code> (its subdomains, not the host itself); <code>http://</code> only
          for localhost. With no entry, no site can show the room.
        </p>
        <div className="actions">
          <Button type="submit" variant="primary" disabled={save.pending}>
            Save allowed sites
          </Button>
          {saved && (
            <span role="status" className="muted">
              Saved
            </span>
          )}
        </div>
        <ErrorNotice error={save.error} />
      </form>
      {stored.length > 0 && (
        <details>
          <summary>Embed code</summary>
          <pre className="snippet">{snippet}</pre>
          <p className="hint">
            For named guests, mint a token on your server (<code>POST /api/v1/public/embed/tokens</code>) and pass it as{' '}
            <code>joinToken</code>.
          </p>
        </details>
      )}
    </Section>
  );
}
