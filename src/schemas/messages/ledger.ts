/**
 * The records of the ledger topic (src/ledger): a bizId's entry (its contract's id, the commands
 * that ended, the steps of those under way), an instance's ownership marker, and a partition's
 * careful-run record. The bridge writes and reads them itself; they are published as a contract
 * so operators can read the topic.
 */
import { z } from 'zod';

/** What the ledger remembers of one step of a command: `started` before its call, `done` after. */
export const StepRecord = z
  .object({
    state: z.enum(['started', 'done']),
    /** What the step produced (contractId, documentId, ...), once done. */
    result: z.record(z.string(), z.unknown()).readonly().optional(),
  })
  .readonly();
export type StepRecord = z.infer<typeof StepRecord>;

export const OpenCommand = z
  .object({
    commandId: z.string(),
    steps: z.record(z.string(), StepRecord).readonly(),
    /**
     * The command ended without a final verdict (gave up, outcome unknown, ...): its steps are
     * kept so that the same commandId sent again resumes where it stopped.
     */
    ended: z.literal(true).optional(),
    /**
     * The fingerprint of the command's content (type, tenantName, payload): the same commandId
     * with another content is refused (src/ledger/fingerprint.ts).
     */
    fingerprint: z.string().optional(),
  })
  .readonly();
export type OpenCommand = z.infer<typeof OpenCommand>;

export const LedgerEntry = z
  .object({
    contractId: z.string().optional(),
    /**
     * Commands that ended, oldest first: `<commandId> <fingerprint>` for a final ending (the
     * commandId spent; a bare commandId was written before fingerprints were kept),
     * `ended@<topic>/<offset>/<timestamp>` and `rejected@<topic>/<offset>/<timestamp>` for a
     * record that ended otherwise (its Kafka timestamp tells it from a record at the same offset
     * of a topic deleted and created again; one written before that names the position alone).
     */
    done: z.array(z.string()).readonly(),
    /**
     * Commands that recorded steps and have not ended, least recently recorded first (an array,
     * not an object: object keys that look like integers would not keep their order).
     */
    open: z.array(OpenCommand).readonly(),
  })
  .readonly();
export type LedgerEntry = z.infer<typeof LedgerEntry>;

/** A command's progress as its handler sees it. */
export interface CommandProgress {
  /** The contract's id once known, from this command or an earlier one of the same bizId. */
  readonly contractId?: string | undefined;
  readonly steps: Readonly<Record<string, StepRecord>>;
  /**
   * The same commandId ended earlier without a final verdict and was sent again: a step left in
   * doubt then was reported as such, and sending it again says to make the call again.
   */
  readonly resent: boolean;
}

export const OwnershipMarker = z.object({
  kind: z.enum(['acquired', 'released']),
  instance: z.string(),
  /** Tells this acquisition from the same instance's earlier ones. */
  nonce: z.string(),
  /** Per command topic, the highest offset the holder may have in hand (acquired only). */
  inHand: z.record(z.string(), z.string().regex(/^\d+$/)).optional(),
  /**
   * Per command topic, the highest offset of what a crashed holder had in hand that this holder
   * is running again and has not finished: dying now, it dies in a crash loop.
   */
  recovering: z.record(z.string(), z.string().regex(/^\d+$/)).optional(),
  /**
   * Written when the acquisition takes the partition over, before any of its commands runs: from
   * here on, the partition's records are this acquisition's alone, and a reader ignores those
   * another acquisition wrote after it (their `sb-acquisition` header names it).
   */
  active: z.literal(true).optional(),
});
export type OwnershipMarker = z.infer<typeof OwnershipMarker>;

/**
 * Per command topic, the offset of the last record of this partition forwarded to the partition
 * its key belongs to (src/consumers/forwarding.ts): a record at or before it was forwarded.
 */
export const ForwardedUpTo = z.record(z.string(), z.string().regex(/^\d+$/));
export type ForwardedUpTo = z.infer<typeof ForwardedUpTo>;

/**
 * Per command topic, the extent of its log (of this partition number) as the partition's ledger
 * last saw it: `start`, the offset of its first record kept, and `end`, the offset after the
 * last record it took in hand (or found there). A log found starting before that start, or ending
 * before that end, is another one (the topic was deleted and created again, or a broker lost
 * records): what the partition's ledger says of positions in the old one (the forwarded mark,
 * the records a crashed holder had in hand) does not hold for it (src/partitions/command-logs.ts).
 */
export const CommandLogs = z.record(
  z.string(),
  z.object({ start: z.string().regex(/^\d+$/), end: z.string().regex(/^\d+$/) }),
);
export type CommandLogs = z.infer<typeof CommandLogs>;

/** A command record run alone after a crash, and the process deaths it has seen so far. */
export const CarefulRun = z.object({
  instance: z.string(),
  topic: z.string(),
  offset: z.string().regex(/^\d+$/),
  deaths: z.number().int().min(0),
});
export type CarefulRun = z.infer<typeof CarefulRun>;
