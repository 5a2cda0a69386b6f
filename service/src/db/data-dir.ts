import fs from 'node:fs';
import path from 'node:path';

/**
 * Makes the data directory 0700 and takes the group and other permissions off everything under `privateDirs`
 * (recordings, the project database), which may predate the service or have been written with a loose umask.
 */
export function restrictDataDir(dataDir: string, privateDirs: string[]): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  restrictToOwner(dataDir, false);
  for (const dir of privateDirs) restrictToOwner(dir, true);
}

function restrictToOwner(target: string, recursive: boolean): void {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  // A symbolic link's own mode means nothing, and following one could chmod files outside the data directory.
  if (stat.isSymbolicLink()) return;
  if ((stat.mode & 0o077) !== 0) fs.chmodSync(target, stat.mode & 0o700);
  if (recursive && stat.isDirectory()) {
    for (const name of fs.readdirSync(target)) restrictToOwner(path.join(target, name), true);
  }
}
