import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { validateApp } from 'zapier-platform-core/src/tools/schema';
import App from '../src';

const appDir = path.resolve(__dirname, '..');

describe('the app definition', () => {
  it('passes zapier-platform-core’s schema validation', () => {
    expect(validateApp(App)).toEqual([]);
  });

  it('offers six visible triggers, one per event type, the hidden webinar list, six actions, four searches and one search-or-create', () => {
    const visible = Object.values(App.triggers).filter((trigger) => !trigger.display.hidden);
    expect(visible.map((trigger) => trigger.key)).toEqual([
      'meeting_started',
      'meeting_ended',
      'recording_ready',
      'transcript_ready',
      'summary_ready',
      'registration_created',
    ]);
    expect(visible.every((trigger) => trigger.operation.type === 'hook')).toBe(true);
    expect(App.triggers.webinar_list.display.hidden).toBe(true);
    expect(Object.keys(App.creates)).toEqual([
      'create_meeting',
      'register_participant',
      'update_meeting',
      'end_meeting',
      'cancel_meeting',
      'reopen_meeting',
    ]);
    expect(Object.keys(App.searches)).toEqual(['find_meeting', 'find_registration', 'get_transcript', 'get_summary']);
    expect(Object.keys(App.searchOrCreates ?? {})).toEqual(['find_registration']);
  });

  it('passes `zapier validate --without-style` of zapier-platform-cli, offline, after its _zapier-build', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'zapier-home-'));
    try {
      const { stdout } = await promisify(execFile)(
        path.join(appDir, '..', 'node_modules', '.bin', 'zapier'),
        ['validate', '--without-style'],
        {
          cwd: appDir,
          env: { ...process.env, HOME: home, DISABLE_ZAPIER_ANALYTICS: '1' },
        },
      );
      expect(stdout).toContain('No structural errors found');
      expect(stdout).toContain('This project is structurally sound!');
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  }, 120_000);

  it('is what index.js, the entry Zapier’s runtime loads, exports once built', () => {
    const built = createRequire(__filename)(path.join(appDir, 'index.js')) as typeof App;
    expect(validateApp(built)).toEqual([]);
    expect(Object.keys(built.triggers)).toEqual(Object.keys(App.triggers));
    expect(Object.keys(built.creates)).toEqual(Object.keys(App.creates));
    expect(built.version).toBe(JSON.parse(fs.readFileSync(path.join(appDir, 'package.json'), 'utf8')).version);
  });
});
