// The command publisher as unit tests of the runner build it: what they vary (the ledger, the
// outbox, the topics, the log), the rest fixed.
import { CommandPublisher } from '../../src/producers/index.js';
import { ROOMY_DEAD_LETTER_LIMITS } from './dead-letters.js';

type Parts = Omit<
  ConstructorParameters<typeof CommandPublisher>[0],
  'source' | 'keep' | 'deadLetter'
>;

/** A publisher over `parts`, source 'test', 10 commands kept, dead letters never cut. */
export function testPublisher(parts: Parts): CommandPublisher {
  return new CommandPublisher({
    ...parts,
    source: 'test',
    keep: 10,
    deadLetter: ROOMY_DEAD_LETTER_LIMITS,
  });
}
