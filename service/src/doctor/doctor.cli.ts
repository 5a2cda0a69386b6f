import { ConfigError, loadConfig } from '../config';
import { formatCheck, runDoctor } from './doctor';
import { systemProbes, type DoctorProbes } from './doctor.probes';

/** `svc doctor`: one line per check on stdout; exit 1 when a check fails (or the configuration does not load), else 0. */
export async function runDoctorCli(
  env: NodeJS.ProcessEnv,
  out: (text: string) => void,
  probes: DoctorProbes = systemProbes(),
): Promise<number> {
  let config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    out(`${formatCheck({ name: 'configuration', status: 'fail', message: err.message, fix: 'correct that variable' })}\n`);
    return 1;
  }
  const results = await runDoctor({ config, env }, probes);
  for (const result of results) out(`${formatCheck(result)}\n`);
  const failed = results.filter((r) => r.status === 'fail').length;
  const warned = results.filter((r) => r.status === 'warn').length;
  out(`${failed} to fix, ${warned} to look at, ${results.length - failed - warned} fine\n`);
  return failed > 0 ? 1 : 0;
}
