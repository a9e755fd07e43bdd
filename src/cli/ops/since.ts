/** `--since T`: an ISO 8601 date or time, or a duration back from now (`30s`, `15m`, `2h`, `7d`). */
import { OperatorInputInvalid } from '../../errors.js';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export const SINCE_HELP = 'an ISO 8601 date or time, or a duration back from now: 30s, 15m, 2h, 7d';

/** @throws OperatorInputInvalid naming --since and what it takes. */
export function parseSince(text: string, now = Date.now()): Date {
  const duration = /^(\d{1,9})([smhd])$/.exec(text.trim());
  if (duration) {
    const unit = duration[2] as keyof typeof UNIT_MS;
    return new Date(now - Number(duration[1]) * UNIT_MS[unit]);
  }
  const iso = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
  const time = iso.test(text.trim()) ? Date.parse(text.trim()) : Number.NaN;
  if (Number.isNaN(time)) {
    throw new OperatorInputInvalid(`--since: "${text}" is not ${SINCE_HELP}`, {
      details: { where: '--since' },
    });
  }
  return new Date(time);
}
