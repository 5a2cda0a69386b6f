/** Host page (React): renders `<SvcMeeting>` of `@svc/embed-react`; `window.__render(props)` re-renders with other props, `__unmount()` removes it. */
import { SvcMeeting, type SvcMeetingProps } from '@svc/embed-react';
import { createRoot } from 'react-dom/client';
import { hostWindow, recordEvent, startHostPage } from './host-page';

/** What the React host page adds to the host page's globals. */
interface ReactHostGlobals {
  __render(overrides: Partial<SvcMeetingProps>): void;
  __unmount(): void;
}

const { serviceUrl, options } = startHostPage();
const host = hostWindow() as ReturnType<typeof hostWindow> & ReactHostGlobals;
const root = createRoot(document.getElementById('meeting')!);
const baseProps = { baseUrl: serviceUrl, ...(options as Partial<SvcMeetingProps>) };

function render(props: Partial<SvcMeetingProps>): void {
  root.render(
    <SvcMeeting
      {...(props as SvcMeetingProps)}
      ref={(handle) => {
        host.__meeting = handle ?? undefined;
      }}
      onEvent={recordEvent}
      style={{ width: '100%', height: '100%' }}
    />,
  );
}

host.__render = (overrides) => render({ ...baseProps, ...overrides });
host.__unmount = () => root.render(null);
render(baseProps);
