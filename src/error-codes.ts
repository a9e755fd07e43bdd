/**
 * Every code of our own errors (`SB_ERR_*`, the classes of errors.ts), with what it means,
 * whether it is retried and what to do. `docs/error-codes.md` is generated from this table.
 *
 * Adding an error class means adding its row here: the base class types `code` as a key of
 * this table, so a class whose code has no row does not compile, and `error-codes.test.ts`
 * fails on a row no class uses.
 */

export interface ErrorCodeRow {
  /** What happened, in a sentence. */
  readonly meaning: string;
  /** Whether the bridge runs the command again: always, never, or the condition (a sentence). */
  readonly retryable: boolean | string;
  /** What the operator, or the producer of the command, should do. */
  readonly action: string;
  /** Where it shows: an event's `error.code`, start-up, a log line, a library call. */
  readonly seenIn: string;
}

const IN_FAILED = 'the `command.failed` event';
/** Kafka is not reached by `run --check-config`, so only the configuration's own errors show there. */
const AT_START = 'start-up (the process exits 1)';
const AT_START_AND_CHECK = `${AT_START} and \`run --check-config\``;

export const ERROR_CODES = {
  SB_ERR_REQUEST_INVALID: {
    meaning: 'A request to the platform broke a rule of the spec; nothing was sent.',
    retryable: false,
    action: "Correct the command's payload: `error.fields` names each field and its rule.",
    seenIn: IN_FAILED,
  },
  SB_ERR_FILE_REJECTED: {
    meaning:
      'A document file was refused before upload: its suffix, its size (FILE_MAX_BYTES), unreadable, or a URL whose host is not in FILE_URL_ALLOWED_HOSTS or resolves to a non-public address.',
    retryable: false,
    action:
      'Send a smaller or supported file, or allow the host (and port) in FILE_URL_ALLOWED_HOSTS; `details.reason` says which.',
    seenIn: IN_FAILED,
  },
  SB_ERR_FILE_FETCH_FAILED: {
    meaning: 'A document file given by URL could not be downloaded.',
    retryable:
      'when the failure may pass (a timeout, a dropped connection, HTTP 5xx, 408 or 429); not after a 4xx or too many redirects',
    action:
      "Check that the URL answers from the bridge's network; after `command.gave-up`, send the command again once it does.",
    seenIn: `${IN_FAILED}, or \`command.gave-up\` when retries ran out`,
  },
  SB_ERR_PLATFORM_REJECTED: {
    meaning:
      'The platform answered a failure code: `error.platformCode` and `error.platformName` (see docs/platform-codes.md).',
    retryable:
      'after throttling (429); after 21990001 (in doubt) only for a draft or an initiation, else the command ends SB_ERR_COMMAND_OUTCOME_UNKNOWN; an authentication refusal (441 to 445, or a code the table lacks answered with an HTTP 4xx equal to it) is an outage the command waits out; a "contract not found" is waited for until PRECONDITION_TIMEOUT_MS',
    action:
      'Read the platform code in docs/platform-codes.md: most are business rules to correct in the command.',
    seenIn: `${IN_FAILED}, \`command.gave-up\` or \`command.precondition-timed-out\``,
  },
  SB_ERR_TRANSPORT_NOT_SENT: {
    meaning:
      'The request never reached the platform: connection refused, unreachable, a connect or TLS failure, reset before the request was written, or SIGNING_CALL_TIMEOUT_MS passed before it was (`details.reason` CALL_DEADLINE_EXCEEDED). An outage: nothing happened on the platform. The command waits for as long as it lasts (the circuit breaker pauses consumption), counted against no retry budget.',
    retryable: true,
    action:
      'Check SIGNING_API_BASE_URL and the network path to the platform; a deadline passed before the request was written means a slow connection or upload (a large document) or calls waiting for one of SIGNING_CONNECTIONS.',
    seenIn:
      'the log line `platform unavailable: consumption paused` (cause `unreachable`); no command ends with it',
  },
  SB_ERR_TRANSPORT_OUTCOME_UNKNOWN: {
    meaning:
      'The request was written but no answer came by SIGNING_CALL_TIMEOUT_MS (`details.reason` CALL_DEADLINE_EXCEEDED), or the connection broke mid-answer: the platform may have acted. Only a draft (1112) or an initiation (1101) is called again, to reconcile; for every other operation the command ends SB_ERR_COMMAND_OUTCOME_UNKNOWN.',
    retryable: true,
    action:
      "Check the platform's latency against SIGNING_CALL_TIMEOUT_MS (one deadline for the whole call); after `command.gave-up`, look the contract up before sending again.",
    seenIn: '`command.gave-up`, or as the cause of `SB_ERR_COMMAND_OUTCOME_UNKNOWN`',
  },
  SB_ERR_TRANSPORT_HTTP_STATUS: {
    meaning:
      "An HTTP status came back without the platform's JSON envelope: something in front of the platform answered (a gateway, a maintenance page).",
    retryable:
      'a 3xx, 401, 403, 404, 405, 407, 408, 421, 501 or 503 is an outage: the command waits for as long as it lasts; a 500, 502, 504 (any other 5xx) leaves the call in doubt: reconciled for a draft or an initiation, else the command ends SB_ERR_COMMAND_OUTCOME_UNKNOWN; another 4xx (400, 413, ...) fails the command, not final',
    action:
      'Check what stands between the bridge and the platform; `details.bodyExcerpt` and `details.contentType` show what it said.',
    seenIn: `${IN_FAILED}, \`command.gave-up\`, or the log line \`platform unavailable: consumption paused\` (cause \`not-the-platform\`)`,
  },
  SB_ERR_RESPONSE_INVALID: {
    meaning:
      "The platform's answer does not have the spec's shape: not a JSON envelope at all (`details.reason` not-envelope, with `details.contentType`), or an envelope whose result breaks the spec (shape). A status or type the spec does not list is kept, not this. An HTML page (a maintenance page) is an outage the command waits out; JSON that is not an envelope, or a result breaking the spec, leaves the call in doubt: reconciled for a draft or an initiation, else the command ends SB_ERR_COMMAND_OUTCOME_UNKNOWN.",
    retryable: false,
    action:
      'Report it with `error.fields`: the platform changed or the spec was misread; a not-envelope answer may come from something in between. The call may have taken effect.',
    seenIn: `${IN_FAILED}, or as the cause of \`SB_ERR_COMMAND_OUTCOME_UNKNOWN\``,
  },
  SB_ERR_RESPONSE_TOO_LARGE: {
    meaning:
      "The platform's answer was larger than SIGNING_MAX_RESPONSE_BYTES (1 MiB by default; the spec's largest answer is a few KB): the bridge stopped reading it and closed the connection. The platform may have acted. Reconciled for a draft or an initiation, else the command ends SB_ERR_COMMAND_OUTCOME_UNKNOWN.",
    retryable: false,
    action:
      'Check what answers at SIGNING_API_BASE_URL (a wrong URL or a proxy sending a large page); look the contract up before sending the command again.',
    seenIn: 'the cause of `SB_ERR_COMMAND_OUTCOME_UNKNOWN`, or `command.gave-up`',
  },
  SB_ERR_COMMAND_OUTCOME_UNKNOWN: {
    meaning:
      "A call that changes something (`details.operation`) was sent and its outcome is unknown (`details.reason`: no answer in time, a reset mid-answer, an unreadable answer, a gateway's 500/502/504, 21990001, or the process died while it was under way), and no answer of the platform can tell whether it took effect. The bridge does not call again: a second call could add a second document or signatory.",
    retryable: false,
    action:
      'Look at the contract on the platform. If the change is missing, send the command again with the same commandId: this ending is not final, so it runs again.',
    seenIn: IN_FAILED,
  },
  SB_ERR_SAGA_STEP_UNRESOLVABLE: {
    meaning:
      'A create-contract step needs ids only a lost result held: after a draft reconciled by 1112, signing positions cannot be placed.',
    retryable: false,
    action: 'Initiate the contract with an `initiate` command that names its positions by ids.',
    seenIn: IN_FAILED,
  },
  SB_ERR_CONFIG_INVALID: {
    meaning: 'The configuration is wrong; the message names every bad variable (never its value).',
    retryable: false,
    action: 'Correct the variables named (docs/configuration.md), then start again.',
    seenIn: AT_START_AND_CHECK,
  },
  SB_ERR_COMMAND_INVALID: {
    meaning:
      'A command record is not JSON, breaks its schema, or is keyed by something other than its bizId.',
    retryable: false,
    action:
      'Fix the producer: `error.fields` names each field; the record is copied untouched to the dead-letter topic.',
    seenIn: 'the `command.rejected` event and the dead-letter header `dlq-error-code`',
  },
  SB_ERR_COMMAND_ENCODING_INVALID: {
    meaning:
      "A command record's key or value is not valid UTF-8 (`details.part`); it is never decoded with replacement characters, since two producers' different key bytes could then name one contract.",
    retryable: false,
    action:
      "Fix the producer to write UTF-8 (the key exactly the bizId's UTF-8 bytes); the record is copied untouched to the dead-letter topic.",
    seenIn: 'the `command.rejected` event and the dead-letter header `dlq-error-code`',
  },
  SB_ERR_COMMAND_ID_REUSED: {
    meaning:
      'The commandId was used before for this bizId by a command with other content (type, tenantName or payload): a commandId names one intended action within its bizId. `details.firstUse` says how that first command stands; `details.firstFingerprint` and `details.fingerprint` tell them apart. Nothing was called.',
    retryable: false,
    action:
      'Give the new command its own commandId; send a command again with the same commandId only with the same content.',
    seenIn: 'the `command.rejected` event and the dead-letter header `dlq-error-code`',
  },
  SB_ERR_COMMAND_EXPIRED: {
    meaning:
      "The command record is older than its partition's ledger vouches for (its timestamp before the replay window, less a margin for clock skew) and its commandId is unknown there: whether it already ran is no longer known, so it is not run. Records are read from the start of a command topic by a new KAFKA_GROUP_ID, a deleted group or expired offsets.",
    retryable: false,
    action:
      'If the command is still wanted, send it again (a new record); otherwise nothing. Records expire after LEDGER_REPLAY_WINDOW (docs/design.md, "Stale records are refused").',
    seenIn: 'the `command.rejected` event and the dead-letter header `dlq-error-code`',
  },
  SB_ERR_COMMAND_LIMIT_EXCEEDED: {
    meaning:
      'A command record is over a limit checked before it is decoded or validated: its key, value or headers too large, its JSON too deep, too long an array or too many values.',
    retryable: false,
    action:
      'Fix the producer, or raise the limit `details.limit` names (docs/configuration.md); the record is copied to the dead-letter topic.',
    seenIn: 'the `command.rejected` event and the dead-letter header `dlq-error-code`',
  },
  SB_ERR_EVENT_INVALID: {
    meaning:
      'An event a handler made breaks its own schema, so it was not published: a bug of the bridge.',
    retryable: false,
    action:
      'Report it with the event type and `error.fields`. The platform call may have taken effect.',
    seenIn: IN_FAILED,
  },
  SB_ERR_HANDLER_THREW: {
    meaning: 'A handler threw instead of returning an outcome: a bug of the bridge.',
    retryable: false,
    action: 'Report it with the logged stack. The platform call may have taken effect.',
    seenIn: IN_FAILED,
  },
  SB_ERR_KAFKA_TOPICS_NOT_COPARTITIONED: {
    meaning:
      'The command topics and the ledger topic do not all have the same number of partitions.',
    retryable: false,
    action: 'Give them one partition count (docs/design.md, "Commands, events, topics").',
    seenIn: AT_START,
  },
  SB_ERR_KAFKA_TOPICS_REPARTITIONED: {
    meaning:
      "A command topic's or the ledger's partition count changed while the bridge ran (`details.changed`): a bizId on a new partition has no ledger entry there. The bridge stopped consuming the command partitions from its count at start on and is not ready; the partitions below still run.",
    retryable: false,
    action:
      'Stop the producers; once `signing-bridge topics grow --partitions N` (N at least the largest count now, as the line says) no longer refuses for `lag`, stop the bridge and run it again: it grows the topics below N and moves the ledger entries (docs/cli.md). Set TOPIC_PARTITIONS=N, start the bridge, then the producers.',
    seenIn: 'the error log line `topic partitions changed while running` and /readyz 503',
  },
  SB_ERR_KAFKA_TOPICS_GROW_REFUSED: {
    meaning:
      "`signing-bridge topics grow` changed nothing (`details.reason`): `lag`, records on the partitions below the smallest count (those the bridge consumed) not committed yet, which could run behind newer records of their bizIds; `group-active`, the group has members; `smaller`, N is below a topic's count; `missing`, a topic does not exist.",
    retryable: false,
    action:
      '`lag`: stop the producers and leave the bridge running (a bridge held by SB_ERR_KAFKA_TOPICS_REPARTITIONED still runs those partitions) until this reason goes, or, when no bridge can run them (it was stopped with counts already mixed), grow with `--accept-lag`, which gives up their order relative to newer records of their bizIds; `group-active`: stop every instance of the group (one stopped in the last seconds may stay listed until its group session ends, as the refusal says); `smaller`: give at least the count named; then run it again.',
    seenIn: '`signing-bridge topics grow` (exit 1)',
  },
  SB_ERR_PARTITION_RELEASED: {
    meaning:
      'This instance no longer owns the partition of the command it ran (a rebalance or a stop): its writes are refused.',
    retryable: false,
    action:
      'Nothing: the next owner runs the command. Frequent ones mean members join and leave often.',
    seenIn: 'no event; the command is left to the next owner',
  },
  SB_ERR_LEDGER_UNWRITABLE: {
    meaning:
      'Kafka refused a ledger record for good (the bridge not authorised on the ledger topic, say).',
    retryable: false,
    action: 'Grant the bridge write access to the ledger topic (`details.topic`), then restart.',
    seenIn: 'start-up (start() rejects), or the bridge turns not ready',
  },
  SB_ERR_OUTBOX_CLOSED: {
    meaning:
      'The shutdown deadline passed before Kafka acknowledged these records: they may or may not have been written.',
    retryable: false,
    action:
      'Nothing: the commands are rerun by the next owner. Check Kafka if it happens at every stop.',
    seenIn: 'a log line at shutdown; no event',
  },
  SB_ERR_SIMULATOR_ADMIN: {
    meaning:
      "The simulator refused an admin request (unknown contract, not that signatory's turn, a bad body).",
    retryable: false,
    action: 'Correct the admin request (docs/simulator.md, "Admin API").',
    seenIn: "the simulator's `AdminClient` (tests and the demo)",
  },
  SB_ERR_KAFKA_WRITE_FAILED: {
    meaning: 'Kafka did not take records the bridge wrote.',
    retryable: 'unless the broker refused them for good (too large, not authorised, invalid)',
    action:
      "Check the brokers and the topics' ACLs and `max.message.bytes`; `details.kafkaError` names the cause.",
    seenIn: 'log lines; the write is sent again while the failure may pass',
  },
  SB_ERR_COMMAND_CRASH_LOOP: {
    meaning:
      'The process died CRASH_LOOP_LIMIT times while this command record ran alone after a crash (out of memory, say): it was dead-lettered instead of run again.',
    retryable: false,
    action:
      'Find out from the dead-letter copy why the record kills the bridge (and report it); fix or drop it, then replay it from the dead-letter topic if it should run.',
    seenIn: 'the `command.rejected` event and the dead-letter copy',
  },
  SB_ERR_SIMULATOR_NOT_INSTALLED: {
    meaning:
      '`signing-bridge simulator` could not load the simulator: the service image leaves it out, and `npm ci --omit=optional` leaves out its PDF reader.',
    retryable: false,
    action:
      "Build and run the Dockerfile's `simulator` target, or in a clone run `npm ci` (optional dependencies included).",
    seenIn: '`signing-bridge simulator` (the process exits 1)',
  },
  SB_ERR_KAFKA_AUTH_FAILED: {
    meaning:
      "TLS or SASL refused the bridge's first connection: an untrusted or misnamed broker certificate, a refused client certificate, wrong credentials or mechanism.",
    retryable: false,
    action:
      'Correct the settings the message names (KAFKA_TLS_CA_FILE, KAFKA_TLS_CERT_FILE, KAFKA_SASL_PASSWORD, KAFKA_BROKERS, ...); see docs/deployment.md, "A secured Kafka cluster".',
    seenIn: AT_START,
  },
  SB_ERR_KAFKA_UNREACHABLE: {
    meaning:
      'No broker answered the first connection in time (or each closed it: often a TLS or SASL setting that does not match the listener).',
    retryable: true,
    action:
      "Check KAFKA_BROKERS and that KAFKA_TLS and KAFKA_SASL_MECHANISM match the listener. Start-up tries a few times over about ten seconds, then exits 1; the orchestrator's restart tries again.",
    seenIn: AT_START,
  },
  SB_ERR_KAFKA_TOPICS_MISSING: {
    meaning:
      'Topics the bridge needs do not exist, and it was told not to create them (TOPICS_CREATE=false).',
    retryable: false,
    action:
      'Create them as the topic table says (`signing-bridge topics create`, docs/cli.md), or set TOPICS_CREATE=true; the message names each missing topic.',
    seenIn: `${AT_START}; \`signing-bridge history\` (exit 4)`,
  },
  SB_ERR_KAFKA_TOPICS_LEADERLESS: {
    meaning:
      'Topics the bridge (or `signing-bridge topics create`) just created were still not listed, with a leader for every partition, by every broker of the cluster after about 30 s; the message names each broker and what it lacks.',
    retryable: true,
    action:
      'Start again; if it repeats, check that the cluster has as many live brokers as TOPIC_REPLICATION_FACTOR asks for and that its controller is healthy. The message names the topics, the brokers and what each lacks.',
    seenIn: `${AT_START}; \`signing-bridge topics create\``,
  },
  SB_ERR_SDK_COMMAND_INVALID: {
    meaning:
      'The SDK (or `signing-bridge send`) refused a command that breaks its schema; nothing was sent.',
    retryable: false,
    action:
      'Correct the command: `details.fields` names each field and its rule, `details.index` the command of a sendMany batch.',
    seenIn: 'a library call (`CommandProducer.send`, `sendMany`); `signing-bridge send` (exit 2)',
  },
  SB_ERR_SDK_EVENT_UNDECODABLE: {
    meaning:
      'A record on the events topic is not an event of a type this SDK knows, with data in its schema (`details.reason`).',
    retryable: false,
    action:
      'Usually an event type newer than the SDK: upgrade the package. Otherwise something other than the bridge writes to the events topic.',
    seenIn:
      "the subscriber's `onUndecodable`; `decodeEvent`; `signing-bridge tail` (a note on stderr)",
  },
  SB_ERR_SDK_OUTCOME_TIMED_OUT: {
    meaning: 'No terminal event of the command arrived within the time given to wait for it.',
    retryable: true,
    action:
      'Wait longer, or look at the command (`signing-bridge history <bizId>`): the bridge may be down, behind, or retrying the platform.',
    seenIn: 'a library call (`EventSubscriber.waitForOutcome`)',
  },
  SB_ERR_SDK_SUBSCRIBER_UNAVAILABLE: {
    meaning:
      'The event subscriber was stopped or its consumer failed for good while something waited for an outcome, or more waits than it holds were asked for.',
    retryable: false,
    action:
      'Start a new subscriber (its `done` promise says why the old one failed), or wait for fewer commands at once (`details.reason`).',
    seenIn: 'a library call (`EventSubscriber.waitForOutcome`)',
  },
  SB_ERR_CLI_INPUT_INVALID: {
    meaning:
      'An operator command was given something it cannot use: an unknown option, a missing argument, a file that is not JSON; nothing was done.',
    retryable: false,
    action:
      'Correct what the message names (the option, argument or file, with line and column); see `--help`.',
    seenIn: 'the operator commands (`send`, `tail`, `history`, `topics`, `dlq`; exit 2)',
  },
} as const satisfies Record<`SB_ERR_${string}`, ErrorCodeRow>;

export type ErrorCode = keyof typeof ERROR_CODES;
