import {
  Children,
  cloneElement,
  Fragment,
  isValidElement,
  useCallback,
  useEffect,
  useId,
  useRef,
  useState,
  type ButtonHTMLAttributes,
  type ReactNode,
} from 'react';
import { ApiError, NetworkError } from './api';

/** The state of a value loaded from the API. */
export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/** Polling of a loaded value: every `ms` while `active(data)` holds for the data shown. */
export interface PollWhile<T> {
  ms: number;
  active: (data: T | undefined) => boolean;
}

/**
 * Loads `load()` now and whenever `deps` change; `reload()` loads again; with `poll`, loads again every `poll.ms`
 * while `poll.active(data)`. A failed reload (a poll tick, Refresh) keeps the data already shown next to its error; a
 * failed load after `deps` changed drops it (it was of something else).
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], poll?: PollWhile<T>): Loaded<T> {
  const [state, setState] = useState<{ data?: T; failure?: { err: unknown }; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const loadedTick = useRef(tick);
  useEffect(() => {
    let live = true;
    const reloading = loadedTick.current !== tick;
    loadedTick.current = tick;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (err: unknown) => live && setState((s) => ({ data: reloading ? s.data : undefined, failure: { err }, loading: false })),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  const polling = Boolean(poll?.active(state.data));
  usePoll(reload, poll?.ms ?? 0, polling);
  // Worded when shown: whether the page retries on its own depends on the data still shown.
  const error = state.failure && messageOf(state.failure.err, polling ? 'polls' : 'reload');
  return { data: state.data, error, loading: state.loading, reload };
}

/** Calls `tick` every `ms` while `active` and the page is visible, and once when the page becomes visible again; stops when `active` turns false or the component goes (the page is left). */
function usePoll(tick: () => void, ms: number, active: boolean): void {
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => document.visibilityState === 'visible' && tick(), ms);
    const onVisible = () => document.visibilityState === 'visible' && tick();
    document.addEventListener('visibilitychange', onVisible);
    window.addEventListener('pageshow', onVisible);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
      window.removeEventListener('pageshow', onVisible);
    };
  }, [tick, ms, active]);
}

/** Runs an action, keeping its pending state and error for the form that started it. */
export function useAction(): { pending: boolean; error: string | undefined; run: (action: () => Promise<void>) => Promise<void> } {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string>();
  const run = useCallback(async (action: () => Promise<void>) => {
    setPending(true);
    setError(undefined);
    try {
      await action();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setPending(false);
    }
  }, []);
  return { pending, error, run };
}

/** What follows a failed request, which a network failure's message tells the reader: an action is tried again by hand (`again`), a page that polls retries on its own (`polls`), a load that does not poll comes back when the page is reloaded (`reload`). */
export type AfterFailure = 'again' | 'polls' | 'reload';

const CANNOT_REACH: Record<AfterFailure, string> = {
  again: 'Cannot reach the service. Check your connection and try again.',
  polls: 'Cannot reach the service. Check your connection; this page retries on its own.',
  reload: 'Cannot reach the service. Check your connection, then reload the page.',
};

/** A readable message for an error: the API's own words for a problem+json answer, a sentence for a network failure (never the browser's wording). */
export function messageOf(err: unknown, after: AfterFailure = 'again'): string {
  if (err instanceof ApiError) return err.detail;
  if (err instanceof NetworkError) return CANNOT_REACH[after];
  return err instanceof Error ? err.message : String(err);
}

/** A button; `variant` sets its look. */
export function Button({
  variant = 'secondary',
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: 'primary' | 'secondary' | 'danger' }) {
  return <button type="button" className={`btn btn-${variant}`} {...rest} />;
}

/** An error message announced to screen readers. */
export function ErrorNotice({ error }: { error: string | undefined }) {
  if (!error) return null;
  return (
    <p className="notice notice-error" role="alert">
      {error}
    </p>
  );
}

/** A short status label. */
export function Badge({ tone, children }: { tone: 'ok' | 'warn' | 'bad' | 'muted' | 'info'; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}

/** A titled section of a page. */
export function Section({ title, actions, children, id }: { title: string; actions?: ReactNode; children: ReactNode; id?: string }) {
  return (
    <section className="card" aria-labelledby={id ? `${id}-title` : undefined}>
      <header className="card-head">
        <h2 id={id ? `${id}-title` : undefined}>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}

/** Copies `text` to the clipboard; falls back to selecting a hidden field. */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
}

/** A read-only value with a Copy button. */
export function CopyField({ label, value }: { label: string; value: string }) {
  const id = useId();
  const [copied, setCopied] = useState(false);
  return (
    <div className="copy-field">
      <label htmlFor={id}>{label}</label>
      <div className="copy-row">
        <input id={id} readOnly value={value} onFocus={(e) => e.currentTarget.select()} spellCheck={false} />
        <Button
          onClick={async () => {
            await copyText(value);
            setCopied(true);
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </Button>
      </div>
    </div>
  );
}

/** A secret shown exactly once: the value, a Copy button and a warning, until dismissed. */
export function SecretOnce({ title, label, value, onDone }: { title: string; label: string; value: string; onDone: () => void }) {
  return (
    <div className="secret-once" role="status">
      <h3>{title}</h3>
      <p className="warning">Copy it now: it is shown only this once and cannot be displayed again.</p>
      <CopyField label={label} value={value} />
      <Button variant="primary" onClick={onDone}>
        I have copied it
      </Button>
    </div>
  );
}

/** A button that asks for confirmation in a modal dialog before running `onConfirm`. */
export function ConfirmButton({
  label,
  title,
  message,
  confirmLabel,
  onConfirm,
  variant = 'danger',
}: {
  label: string;
  title: string;
  message: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<void>;
  variant?: 'danger' | 'secondary';
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const { pending, error, run } = useAction();
  const titleId = useId();
  return (
    <>
      <Button variant={variant} onClick={() => dialog.current?.showModal()}>
        {label}
      </Button>
      <dialog ref={dialog} aria-labelledby={titleId} className="dialog">
        <h2 id={titleId}>{title}</h2>
        <div>{message}</div>
        <ErrorNotice error={error} />
        <div className="actions">
          <Button onClick={() => dialog.current?.close()}>Cancel</Button>
          <Button
            variant={variant === 'danger' ? 'danger' : 'primary'}
            disabled={pending}
            onClick={() =>
              run(async () => {
                await onConfirm();
                dialog.current?.close();
              })
            }
          >
            {confirmLabel}
          </Button>
        </div>
      </dialog>
    </>
  );
}

/** A date-time in the reader's locale and time zone, or a dash. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A group of checkboxes over `options`. */
export function Checkboxes({
  legend,
  options,
  value,
  onChange,
}: {
  legend: string;
  options: readonly string[];
  value: string[];
  onChange: (next: string[]) => void;
}) {
  return (
    <fieldset className="checkboxes">
      <legend>{legend}</legend>
      {options.map((option) => (
        <label key={option} className="check">
          <input
            type="checkbox"
            checked={value.includes(option)}
            onChange={(e) => onChange(e.target.checked ? [...value, option] : value.filter((v) => v !== option))}
          />
          <code>{option}</code>
        </label>
      ))}
    </fieldset>
  );
}

/** A table that scrolls sideways on narrow screens, with its column headers. */
export function Table({ headers, children }: { headers: ReactNode[]; children: ReactNode }) {
  // Each cell carries its column's name, which labels it where a phone's width stacks a row's cells.
  const labelled = Children.map(children, (row) => labelCells(row, headers));
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            {headers.map((h, i) => (
              <th key={i}>{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>{labelled}</tbody>
      </table>
    </div>
  );
}

/** Gives each cell of a row, or of the rows in a fragment, its column's header as `data-label` (a cell spanning columns gets none). */
function labelCells(node: ReactNode, headers: ReactNode[]): ReactNode {
  if (!isValidElement<{ children?: ReactNode }>(node)) return node;
  if (node.type === Fragment)
    return cloneElement(
      node,
      undefined,
      Children.map(node.props.children, (row) => labelCells(row, headers)),
    );
  if (node.type !== 'tr') return node;
  const cells = Children.toArray(node.props.children).map((cell, i) =>
    isValidElement<{ colSpan?: number }>(cell) && !cell.props.colSpan && typeof headers[i] === 'string'
      ? cloneElement(cell, { 'data-label': headers[i] } as object)
      : cell,
  );
  return cloneElement(node, undefined, cells);
}

/** The message a problem+json answer gave for one field, shown beside it (its id goes in the field's aria-describedby). */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <span id={id} className="field-error">
      {message}
    </span>
  );
}

/** A length of time in seconds as m:ss, or h:mm:ss from an hour on. */
export function formatDuration(seconds: number): string {
  const total = Math.max(0, Math.round(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}
