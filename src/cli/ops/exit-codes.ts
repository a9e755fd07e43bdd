/** The exit codes of the operator commands (send, tail, history, topics, dlq); docs/cli.md. */
export const EXIT = {
  /** Done. */
  ok: 0,
  /**
   * Done, and the answer is "not as it should be": `topics check` found differences, `topics
   * create` could not make them go away, `dlq replay` left dead letters it could not replay.
   */
  notAsExpected: 1,
  /** Bad usage or bad input: an unknown option, a missing argument, a command breaking its schema. */
  badInput: 2,
  /** The environment (KAFKA_*, TOPIC_*) is invalid. */
  badConfig: 3,
  /** Kafka could not be reached, or refused what was asked (a topic missing, not authorised). */
  kafkaFailed: 4,
} as const;

export const EXIT_CODES_HELP = `Exit codes:
  0  done
  1  done, but not as it should be (differences found, dead letters not replayed)
  2  bad usage or bad input (nothing was done)
  3  the environment (KAFKA_*, TOPIC_*) is invalid
  4  Kafka could not be reached or refused the request
`;
