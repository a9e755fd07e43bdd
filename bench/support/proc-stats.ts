/**
 * What Linux's /proc says about one process: its CPU time and its memory. Every reading is
 * undefined elsewhere (or once the process is gone), never an error.
 */
import { readdir, readFile } from 'node:fs/promises';

/** User + system CPU seconds (USER_HZ is 100, so 10 ms steps). */
export async function cpuSeconds(pid: number | undefined): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** CPU seconds all processes of the machine have used (every core, idle and iowait excluded). */
export async function machineBusySeconds(): Promise<number | undefined> {
  try {
    const [line = ''] = (await readFile('/proc/stat', 'utf8')).split('\n');
    // cpu  user nice system idle iowait irq softirq steal ...
    const [user, nice, system, , , irq, softirq, steal] = line.split(/\s+/).slice(1).map(Number);
    const busy = [user, nice, system, irq, softirq, steal].reduce((a = 0, b = 0) => a + b, 0);
    return busy === undefined ? undefined : busy / 100;
  } catch {
    return undefined;
  }
}

/** A child process of `parent` whose command name (as /proc/<pid>/stat says) is `command`. */
export async function childPid(parent: number, command: string): Promise<number | undefined> {
  const pids = (await readdir('/proc').catch(() => [])).filter((name) => /^\d+$/.test(name));
  for (const pid of pids) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (name === command && ppid === parent) return Number(pid);
  }
  return undefined;
}

export interface Memory {
  /** Resident set size now (VmRSS), in MB. */
  readonly rssMb: number;
  /** Highest resident set size so far (VmHWM), in MB. */
  readonly peakMb: number;
}

export async function memory(pid: number | undefined): Promise<Memory | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) =>
      Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
    const [rss, peak] = [kb('VmRSS'), kb('VmHWM')];
    if (!(rss >= 0 && peak >= 0)) return undefined;
    return { rssMb: rss / 1024, peakMb: peak / 1024 };
  } catch {
    return undefined;
  }
}

export interface Sample {
  /** Date.now() of the reading. */
  readonly at: number;
  readonly cpuSeconds: number;
  readonly rssMb: number;
}

/** Reads a process's CPU time and RSS every `intervalMs` until stopped. */
export class ResourceSampler {
  readonly samples: Sample[] = [];
  readonly #timer: NodeJS.Timeout;

  constructor(
    readonly pid: number,
    intervalMs: number,
  ) {
    this.#timer = setInterval(() => void this.sample(), intervalMs);
    void this.sample();
  }

  async sample(): Promise<Sample | undefined> {
    const at = Date.now();
    const [cpu, mem] = await Promise.all([cpuSeconds(this.pid), memory(this.pid)]);
    if (cpu === undefined || mem === undefined) return undefined;
    const sample = { at, cpuSeconds: cpu, rssMb: mem.rssMb };
    this.samples.push(sample);
    return sample;
  }

  /** The samples taken from `from` to `to` (Date.now() times). */
  between(from: number, to: number): Sample[] {
    return this.samples.filter((s) => s.at >= from && s.at <= to);
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
