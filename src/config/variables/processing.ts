import { LANES_PER_SHARE } from '../../consumers/class-shares.js';
import { defaultBridgeSettings } from '../../consumers/settings.js';
import { SUSPECT_GRACE_MS } from '../../partitions/crash-guard.js';
import { duration, integer, milliseconds, optionalInteger, text } from '../parsers.js';
import type { Variable } from '../variable.js';

/** The engine's own defaults: the table states them, it does not restate them. */
const bridge = defaultBridgeSettings();
const retryPolicy = bridge.retry.policy;
const waitPolicy = bridge.precondition.policy;

export const PROCESSING = [
  {
    name: 'MAX_IN_FLIGHT',
    group: 'Processing',
    schema: integer({ min: 1, max: 10_000 }),
    default: String(bridge.maxInFlight),
    description:
      'Commands running at once in this instance (one at a time per bizId); one waiting only for Kafka to acknowledge its end frees its place.',
  },
  {
    name: 'MAX_PENDING',
    group: 'Processing',
    schema: integer({ min: 1 }),
    default: String(bridge.maxPending),
    description: `Commands queued, running, waiting to retry or for their end to be acknowledged, at which fetching pauses; it resumes below half of it. One bizId holds at most 1/${LANES_PER_SHARE} of its class's share of commands of one type: its next ones stay in Kafka, read again once half of those ended, while other bizIds go on (docs/design.md, "Hot keys").`,
  },
  {
    name: 'MAX_PENDING_BYTES',
    group: 'Processing',
    schema: integer({ min: 1_048_576 }),
    default: String(bridge.maxPendingBytes),
    description: `Bytes of the records of those commands (keys, values, headers) at which fetching pauses too; at least the largest record the limits admit. One bizId holds at most 1/${LANES_PER_SHARE} of its class's share of bytes of one type (at least one record).`,
  },
  {
    name: 'RETRY_MAX_ATTEMPTS',
    group: 'Processing',
    schema: integer({ min: 1 }),
    default: String(bridge.retry.maxAttempts),
    description: `Runs of a command that fails transiently before command.gave-up. Between runs it waits a full-jitter backoff whose cap starts at ${retryPolicy.initialDelayMs} ms and grows ×${retryPolicy.multiplier} up to ${retryPolicy.maxDelayMs} ms.`,
  },
  {
    name: 'RETRY_MAX_ELAPSED_MS',
    group: 'Processing',
    schema: milliseconds(1),
    default: String(bridge.retry.maxElapsedMs),
    description: 'Time from the first run of a failing command to command.gave-up.',
  },
  {
    name: 'PRECONDITION_TIMEOUT_MS',
    group: 'Processing',
    schema: milliseconds(),
    default: String(bridge.precondition.timeoutMs),
    description: `How long a command waits for its contract to exist (a command racing its create-contract) before command.precondition-timed-out. It looks again after a full-jitter backoff whose cap starts at ${waitPolicy.initialDelayMs} ms and grows ×${waitPolicy.multiplier} up to ${waitPolicy.maxDelayMs} ms.`,
  },
  {
    name: 'SHUTDOWN_DEADLINE_MS',
    group: 'Processing',
    schema: milliseconds(),
    default: String(bridge.shutdownDeadlineMs),
    description:
      'On SIGTERM/SIGINT, how long commands in flight may finish before the final flush and exit.',
  },
  {
    name: 'HANDOVER_TIMEOUT_MS',
    group: 'Processing',
    schema: milliseconds(),
    default: String(bridge.handoverTimeoutMs),
    description:
      "How long a new owner of a partition waits for the previous owner's released marker (an owner that crashed never writes it).",
  },
  {
    name: 'LEDGER_REPLAY_WINDOW',
    group: 'Processing',
    schema: duration({ min: 1_000, max: 365 * 86_400_000 }),
    default: `${bridge.ledgerReplayWindowMs / 86_400_000}d`,
    description:
      "How long a bizId's ledger entry is kept after its last write when nothing of it is open (30s, 12h, 7d): a replayed command within it is skipped, an older replay runs again. Entries with a command open are kept whatever their age. Memory and restore time follow the bizIds active within it.",
  },
  {
    name: 'LEDGER_MEMORY_BYTES',
    group: 'Processing',
    schema: optionalInteger({ min: 1_048_576 }),
    default: '',
    description:
      "Estimated bytes the ledger entries of this instance's partitions may take (each partition an equal share); empty: a quarter of the heap's limit (v8 heap_size_limit, so it follows --max-old-space-size). Past it a partition's oldest entries with nothing open leave memory (never one with a command under way): its replay window then starts at the newest of them (signing_bridge_ledger_effective_window_seconds, a log line, the LedgerWindowShrunk alert), and older records are refused as expired (SB_ERR_COMMAND_EXPIRED).",
  },
  {
    name: 'CRASH_LOOP_LIMIT',
    group: 'Processing',
    schema: integer({ min: 1, max: 20 }),
    default: String(bridge.crashLoopLimit),
    description: `When the process dies again while running what a crashed one had in hand (a crash loop), its partition runs one command at a time until those records are done, or until the instance taken for dead is back in the group (it only stalled); one that kills the process this many times while it runs alone is dead-lettered (command.rejected, SB_ERR_COMMAND_CRASH_LOOP) instead of run again, once its last holder is still not back ${SUSPECT_GRACE_MS / 1_000} s after the take-over. A poison record so costs 2 + this many restarts.`,
  },
  {
    name: 'EVENT_SOURCE',
    group: 'Processing',
    schema: text,
    default: bridge.source,
    description: 'CloudEvents source attribute (ce_source) of every event published.',
  },
] as const satisfies readonly Variable[];
