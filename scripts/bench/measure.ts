import {spawnSync} from 'node:child_process'

/** One timed run of an external command. */
export interface Measurement {
  seconds: number
  /** Peak resident set size of the command (its largest process), in MiB. */
  peakRssMiB: number
}

/** Runs the command under python3 to read the child's wall time and peak RSS (getrusage RUSAGE_CHILDREN). */
const probe = `
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[2:], cwd=sys.argv[1], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
elapsed = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"seconds": elapsed, "maxrss_kb": usage.ru_maxrss, "status": done.returncode, "stderr": done.stderr.decode("utf-8", "replace")[-2000:]}))
`

/** Times `command args…` in `cwd`; throws when it exits non-zero. */
export function measure(command: string, args: readonly string[], cwd: string): Measurement {
  const run = spawnSync('python3', ['-c', probe, cwd, command, ...args], {encoding: 'utf8', maxBuffer: 16 * 1024 * 1024})
  if (run.status !== 0) throw new Error(`measuring ${command} failed: ${run.stderr}`)
  const result = JSON.parse(run.stdout) as {seconds: number; maxrss_kb: number; status: number; stderr: string}
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}: ${result.stderr}`)
  return {seconds: result.seconds, peakRssMiB: result.maxrss_kb / 1024}
}

/** Like {@link measure} but through a shell (for pipelines such as unzip && sha256sum -c). */
export function measureShell(script: string, cwd: string): Measurement {
  return measure('bash', ['-c', script], cwd)
}

/** The median of a list of numbers. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
